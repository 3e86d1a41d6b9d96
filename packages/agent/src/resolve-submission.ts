import { type Prediction, PredictionSchema } from "@loclab/schemas";
import { locateFile, ToolError, type Workspace } from "@loclab/tools";
import type { Submission } from "./submit-localization.js";

export type ResolvedSubmission =
  | { ok: true; prediction: Prediction; droppedPaths: string[] }
  | { ok: false; problems: string[]; droppedPaths: string[] };

/**
 * Turns a schema-valid submission into a prediction: each location's path goes through the
 * tools' fuzzy matching (`locateFile`, as view_file does); a path that names no single file
 * (not found, ambiguous, a folder, refused) is dropped and listed. `files` are the distinct
 * resolved paths in location order. The result is checked with `PredictionSchema`.
 */
export async function resolveSubmission(
  workspace: Workspace,
  instanceId: string,
  submission: Submission,
): Promise<ResolvedSubmission> {
  const droppedPaths: string[] = [];
  const locations: Prediction["locations"] = [];
  for (const location of submission.locations) {
    const path = await resolvePath(workspace, location.path);
    if (path === undefined) {
      droppedPaths.push(location.path);
      continue;
    }
    locations.push({ ...location, path });
  }
  if (locations.length === 0) {
    return {
      ok: false,
      droppedPaths,
      problems: [
        `no location names a file of the repository (${droppedPaths.map((p) => JSON.stringify(p)).join(", ")})`,
      ],
    };
  }
  const parsed = PredictionSchema.safeParse({
    instanceId,
    files: [...new Set(locations.map((location) => location.path))],
    locations,
    finding: submission.finding,
  });
  if (!parsed.success) {
    return {
      ok: false,
      droppedPaths,
      problems: parsed.error.issues.map((issue) => `${issue.path.join(".") || "prediction"}: ${issue.message}`),
    };
  }
  return { ok: true, prediction: parsed.data, droppedPaths };
}

async function resolvePath(workspace: Workspace, requested: string): Promise<string | undefined> {
  try {
    const match = await locateFile(workspace, requested, { tool: "submit_localization" });
    return match.status === "found" ? match.path : undefined;
  } catch (error) {
    if (error instanceof ToolError) return undefined;
    throw error;
  }
}
