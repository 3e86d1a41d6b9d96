import { readFile } from "node:fs/promises";
import { PARSER_NAMES, type HarnessSpec } from "@loclab/grading";
import { z } from "zod";

/** A specs file loclab cannot use: names the file and the repository → version → field. */
export class SpecsFileError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`specs file ${path}: ${reason}`);
    this.name = "SpecsFileError";
  }
}

const stringList = z.array(z.string());

/** One spec of a repository the harness does not know: the harness's fields, and `parser` by name. */
export const HarnessSpecSchema = z
  .object({
    python: z.string().regex(/^\d+\.\d+(\.\d+)?$/, 'a Python version such as "3.9"'),
    packages: z.string().optional(),
    pip_packages: stringList.optional(),
    pre_install: stringList.optional(),
    install: z.string().optional(),
    eval_commands: stringList.optional(),
    test_cmd: z.union([z.string(), stringList.min(1)]),
    no_use_env: z.boolean().optional(),
    nano_cpus: z.number().optional(),
    execute_test_as_nonroot: z.boolean().optional(),
    parser: z.enum(PARSER_NAMES as unknown as [string, ...string[]]).optional(),
  })
  .strict();

/** `{ repo: { version: spec } }`. */
export const SpecsFileSchema = z.record(z.string(), z.record(z.string(), HarnessSpecSchema));

export type SpecsFile = Record<string, Record<string, HarnessSpec>>;

/** A specs file (`--specs`), checked field by field; errors say where (`owner/name → 1.0 → python`). */
export async function readSpecsFile(path: string): Promise<SpecsFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpecsFileError(path, code === "ENOENT" ? "no such file" : (error as Error).message);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SpecsFileError(path, `not JSON: ${(error as Error).message}`);
  }
  const parsed = SpecsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map(String).join(" → ") || "(top level)";
    throw new SpecsFileError(path, `${where}: ${issue.message}`);
  }
  return parsed.data as SpecsFile;
}
