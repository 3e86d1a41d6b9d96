import { type Prediction, PredictionSchema, type SherlocOutputLocation, parseSherlocFindings } from "@loclab/schemas";
import type { Workspace } from "@loclab/tools";

/**
 * A `<locations>` answer of the `sherloc` profile as a prediction. SHERLOC accepts any such
 * answer (an empty one too) as a success, so this never refuses: each location with a file
 * and a usable range (1 ≤ start ≤ end) whose path names a file of the workspace exactly (as
 * SHERLOC's evaluator compares paths) becomes an `edit` span; the others are dropped, their
 * paths listed (text lines have none). The `<findings>` text becomes loclab's five-field
 * finding when it carries the five labels; `status` is SHERLOC's `success`.
 */
export async function acceptSherlocAnswer(
  workspace: Workspace,
  instanceId: string,
  args: Record<string, unknown>,
): Promise<{ prediction: Prediction; droppedPaths: string[] }> {
  const written = Array.isArray(args.locations) ? (args.locations as SherlocOutputLocation[]) : [];
  const known = new Set(await workspace.paths());
  const locations: Prediction["locations"] = [];
  const droppedPaths: string[] = [];
  for (const entry of written) {
    const { file_path: path, start_line: start, end_line: end } = entry;
    if (path === undefined) continue;
    if (!known.has(path) || start === undefined || end === undefined || start < 1 || start > end) {
      droppedPaths.push(path);
      continue;
    }
    locations.push({ path, startLine: start, endLine: end, role: "edit" });
  }
  const finding = parseSherlocFindings(typeof args.findings === "string" ? args.findings : null);
  const prediction = PredictionSchema.parse({
    instanceId,
    files: [...new Set(locations.map((location) => location.path))],
    locations,
    status: "success",
    ...(finding ? { finding } : {}),
  });
  return { prediction, droppedPaths };
}
