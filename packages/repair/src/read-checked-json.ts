import { readFile } from "node:fs/promises";
import type { z } from "zod";

/** A JSON file the run wrote, checked against its schema; what is wrong is named with the file and the field. */
export async function readCheckedJson<Schema extends z.ZodType>(
  path: string,
  schema: Schema,
  what: string,
): Promise<z.output<Schema>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: ${(error as Error).message}`);
  }
  const checked = schema.safeParse(value);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new Error(`${path}: ${issue.path.join(".") || what}: ${issue.message}`);
  }
  return checked.data;
}
