import { z } from "zod";
import { InstanceIdSchema } from "./instance-id.js";

/**
 * A list of test ids, as SWE-bench ships them: some dumps store `FAIL_TO_PASS` and
 * `PASS_TO_PASS` as a JSON-encoded string (`"[\"test_a\"]"`, SWE-bench Lite in ../shared/data),
 * others as a real list. Both parse to `string[]`; anything else is an error naming the field.
 */
const TestList = z.preprocess((value, ctx) => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    ctx.addIssue({ code: "custom", message: "expected a list of test ids or a JSON-encoded list" });
    return z.NEVER;
  }
}, z.array(z.string()));

/**
 * One benchmark task: a SWE-bench row (Lite, Verified, Loc-Bench, or any user JSONL in the
 * same shape). Only the five fields every split has are required; the others are optional
 * because SWE-bench Verified dumps (500 rows in ../shared/data) carry just those five.
 * Unknown fields (Loc-Bench's `category`, Verified's `difficulty`) are kept, not dropped.
 */
export const InstanceSchema = z.looseObject({
  instance_id: InstanceIdSchema,
  /** `owner/name`, e.g. `django/django`. */
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, "repo must look like owner/name"),
  base_commit: z.string().min(1, "base_commit must not be empty"),
  problem_statement: z.string(),
  /** The gold patch: a unified diff against `base_commit` (docs/definitions.md §2). */
  patch: z.string(),
  test_patch: z.string().optional(),
  hints_text: z.string().optional(),
  created_at: z.string().optional(),
  version: z.union([z.string(), z.number()]).transform(String).optional(),
  FAIL_TO_PASS: TestList.optional(),
  PASS_TO_PASS: TestList.optional(),
  environment_setup_commit: z.string().optional(),
});

export type Instance = z.output<typeof InstanceSchema>;
/** What a file may hold before parsing (test lists still JSON-encoded strings, and so on). */
export type InstanceInput = z.input<typeof InstanceSchema>;

/**
 * The repository-cluster key of an instance id (`django__django-11099` → `django__django`),
 * used when the `repo` field is not at hand (e.g. resolved matrices keyed by id only).
 */
export function repoKeyFromInstanceId(instanceId: string): string {
  const cut = instanceId.lastIndexOf("-");
  return cut > 0 ? instanceId.slice(0, cut) : instanceId;
}
