import { readFile } from "node:fs/promises";
import { z } from "zod";

/** One prediction in SWE-bench's format. `model_patch: null` is the harness's `patch_is_None`. */
export const SwePredictionSchema = z.looseObject({
  instance_id: z.string().min(1, "instance_id must not be empty"),
  model_name_or_path: z.string().min(1, "model_name_or_path must not be empty"),
  model_patch: z.string().nullable(),
});
export type SwePrediction = z.output<typeof SwePredictionSchema>;

export class PredictionsFileError extends Error {
  constructor(file: string, where: string, reason: string) {
    super(`${file}${where}: ${reason}`);
    this.name = "PredictionsFileError";
  }
}

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(row)"}: ${issue.message}`).join("; ");
}

/**
 * Reads a predictions file as the harness does (`get_predictions_from_file`): JSONL, or JSON
 * holding a list or an object keyed by instance id. A bad row is an error naming the file and
 * line (JSONL) or index / key (JSON) and the field; a repeated instance id names both places,
 * since the harness would keep one silently.
 */
export async function readSwePredictions(file: string): Promise<SwePrediction[]> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new PredictionsFileError(file, "", error.code === "ENOENT" ? "no such file" : error.message);
  });
  const rows: { where: string; value: unknown }[] = [];
  if (file.endsWith(".json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new PredictionsFileError(file, "", `not valid JSON: ${(error as Error).message}`);
    }
    if (Array.isArray(parsed)) parsed.forEach((value, index) => rows.push({ where: ` [${index}]`, value }));
    else if (parsed && typeof parsed === "object")
      for (const [key, value] of Object.entries(parsed)) rows.push({ where: ` ["${key}"]`, value });
    else throw new PredictionsFileError(file, "", "expected a list of predictions or an object keyed by instance id");
  } else {
    text.split("\n").forEach((line, index) => {
      if (line.trim() === "") return;
      try {
        rows.push({ where: `:${index + 1}`, value: JSON.parse(line) });
      } catch (error) {
        throw new PredictionsFileError(file, `:${index + 1}`, `not valid JSON: ${(error as Error).message}`);
      }
    });
  }
  const seen = new Map<string, string>();
  return rows.map(({ where, value }) => {
    const result = SwePredictionSchema.safeParse(value);
    if (!result.success) throw new PredictionsFileError(file, where, describe(result.error));
    const earlier = seen.get(result.data.instance_id);
    if (earlier !== undefined)
      throw new PredictionsFileError(file, where, `instance ${result.data.instance_id} again (first at${earlier})`);
    seen.set(result.data.instance_id, where);
    return result.data;
  });
}

/** The harness's log folder name for a model (`/` → `__`). */
export function modelDirectoryName(modelNameOrPath: string): string {
  return modelNameOrPath.split("/").join("__");
}
