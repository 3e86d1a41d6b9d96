import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

/** What `manifest.json` beside a materialized tree records. */
export const workspaceManifestSchema = z.object({
  schemaVersion: z.literal(1),
  kind: z.literal("loclab-workspace"),
  repo: z.string(),
  commit: z.string(),
  mirror: z.string(),
  createdAt: z.string(),
  files: z.array(z.object({ path: z.string(), kind: z.enum(["file", "symlink"]) })),
});
export type WorkspaceManifest = z.infer<typeof workspaceManifestSchema>;

/** The manifest of a materialized tree's folder, when it is valid and its `tree/` exists. */
export async function readManifest(folder: string): Promise<WorkspaceManifest | undefined> {
  try {
    const parsed = workspaceManifestSchema.safeParse(JSON.parse(await readFile(join(folder, "manifest.json"), "utf8")));
    return parsed.success && existsSync(join(folder, "tree")) ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
