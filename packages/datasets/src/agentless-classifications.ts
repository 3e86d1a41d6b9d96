import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { formatZodError } from "@loclab/schemas";
import { parse } from "csv-parse/sync";
import { z } from "zod";
import { resolveDataDir } from "./data-dir.js";

/** Where the Agentless manual labels of SWE-bench Lite live in the data folder (data README). */
export const AGENTLESS_CLASSIFICATIONS_FILE = "swebench/lite-agentless-classifications.csv";

/** The manual labels Agentless gave each SWE-bench Lite issue: how much it reveals of the fix. */
export interface IssueClassification {
  instanceId: string;
  descriptionQuality: string;
  solutionInDescription: string;
  /** Whether the issue text reveals the location: None, Keywords, Natural language, Stacktrace. */
  lineLocation: string;
  functionLocation: string;
  fileLocation: string;
}

const RowSchema = z.object({
  instance_id: z.string().min(1),
  "description quality": z.string(),
  "solution in description": z.string(),
  "line location": z.string(),
  "function location": z.string(),
  "file location": z.string(),
});

/**
 * The Agentless classifications of the 300 SWE-bench Lite issues (a CSV with quoted,
 * multi-line fields), keyed by instance id. A row that lacks a label column is an error
 * naming its record number and the field.
 */
export async function loadAgentlessClassifications(
  options: { dataDir?: string } = {},
): Promise<Map<string, IssueClassification>> {
  const path = join(resolveDataDir(options), AGENTLESS_CLASSIFICATIONS_FILE);
  const records = parse(await readFile(path, "utf8"), { columns: true, skip_empty_lines: true }) as unknown[];
  const labels = new Map<string, IssueClassification>();
  records.forEach((record, index) => {
    const row = RowSchema.safeParse(record);
    if (!row.success) throw new Error(`${path}: record ${index + 1}: ${formatZodError(row.error)}`);
    const value = row.data;
    if (labels.has(value.instance_id))
      throw new Error(`${path}: record ${index + 1}: duplicate instance_id ${value.instance_id}`);
    labels.set(value.instance_id, {
      instanceId: value.instance_id,
      descriptionQuality: value["description quality"],
      solutionInDescription: value["solution in description"],
      lineLocation: value["line location"],
      functionLocation: value["function location"],
      fileLocation: value["file location"],
    });
  });
  return labels;
}
