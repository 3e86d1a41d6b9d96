import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@loclab/schemas";
import { z } from "zod";
import { loclabCache } from "./caches.js";
import { OUTCOME_STATUSES } from "./outcome.js";

/**
 * An instance image's validation: what a calibration saw on it (gold runs, the empty run, flaky
 * tests). `validated` when every gold run resolved, the empty patch did not, and nothing failed
 * for the infrastructure: the image can tell a good patch from a bad one.
 */
export const ImageValidationSchema = z.object({
  image_id: z.string(),
  image_name: z.string(),
  instance_id: z.string(),
  repo: z.string(),
  version: z.string(),
  python: z.string().optional(),
  gold: z.array(z.enum(OUTCOME_STATUSES)),
  empty: z.enum(OUTCOME_STATUSES).optional(),
  flaky: z.array(z.string()),
  validated: z.boolean(),
  run_id: z.string(),
  at: z.string(),
});
export type ImageValidation = z.output<typeof ImageValidationSchema>;

/** Whether a calibration's outcomes validate the image (see ImageValidationSchema). */
export function isValidated(entry: { gold: readonly string[]; empty: string | undefined }): boolean {
  return entry.gold.length > 0 && entry.gold.every((status) => status === "resolved") && entry.empty === "unresolved";
}

/** Where validations are kept: ~/.cache/loclab/validations, one file per instance image id. */
export function defaultValidationDir(): string {
  return loclabCache("validations");
}

function fileOf(dir: string, imageId: string): string {
  return join(dir, `${imageId.replace(/^sha256:/, "").slice(0, 64)}.json`);
}

/** Records a validation (the last calibration of an image wins). */
export async function recordValidation(dir: string, validation: ImageValidation): Promise<string> {
  await mkdir(dir, { recursive: true });
  const path = fileOf(dir, validation.image_id);
  await writeFileAtomic(path, `${JSON.stringify(ImageValidationSchema.parse(validation), null, 2)}\n`);
  return path;
}

/** The recorded validation of an image, or undefined (never calibrated, or the file is unreadable). */
export async function readValidation(dir: string, imageId: string): Promise<ImageValidation | undefined> {
  const path = fileOf(dir, imageId);
  if (!existsSync(path)) return undefined;
  try {
    return ImageValidationSchema.parse(JSON.parse(await readFile(path, "utf8")));
  } catch {
    return undefined;
  }
}

/** One row of the validation table: a repository × version over the calibrated instances. */
export interface ValidationRow {
  repo: string;
  version: string;
  /** The Pythons the images had ("3.9.2 for 3.6 (nearest-newer)"), when local images. */
  pythons: string[];
  instances: number;
  /** Instances whose image was built (no image-build or environment failure). */
  built: number;
  /** Instances whose every gold run resolved. */
  gold_resolved: number;
  /** Instances the empty patch resolved (a test list the base commit already passes). */
  empty_resolved: number;
  /** Instances with at least one flaky test. */
  with_flaky_tests: number;
  /** Instances with an infrastructure failure in some run. */
  infra_failures: number;
  validated: number;
}

export interface ValidationInput {
  instance_id: string;
  repo: string;
  version: string;
  python?: string | undefined;
  gold: readonly string[];
  empty: string | undefined;
  flaky: readonly string[];
  /** The first infrastructure failure's reason, if any. */
  infraReason?: string | undefined;
}

const BUILD_FAILURES = new Set(["image-build-failed", "environment-unsupported", "mirror-missing", "image-missing"]);

/** The table a user validates a set of images by: per repository × version, sorted. */
export function validationTable(entries: readonly ValidationInput[]): ValidationRow[] {
  const rows = new Map<string, ValidationRow>();
  for (const entry of entries) {
    const key = `${entry.repo}\u0000${entry.version}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        repo: entry.repo,
        version: entry.version,
        pythons: [],
        instances: 0,
        built: 0,
        gold_resolved: 0,
        empty_resolved: 0,
        with_flaky_tests: 0,
        infra_failures: 0,
        validated: 0,
      };
      rows.set(key, row);
    }
    row.instances += 1;
    if (entry.python && !row.pythons.includes(entry.python)) row.pythons.push(entry.python);
    if (!entry.infraReason || !BUILD_FAILURES.has(entry.infraReason)) row.built += 1;
    if (entry.gold.length > 0 && entry.gold.every((status) => status === "resolved")) row.gold_resolved += 1;
    if (entry.empty === "resolved") row.empty_resolved += 1;
    if (entry.flaky.length > 0) row.with_flaky_tests += 1;
    if (entry.infraReason) row.infra_failures += 1;
    if (isValidated(entry)) row.validated += 1;
  }
  return [...rows.values()].sort((a, b) =>
    a.repo === b.repo ? a.version.localeCompare(b.version, "en", { numeric: true }) : a.repo < b.repo ? -1 : 1,
  );
}
