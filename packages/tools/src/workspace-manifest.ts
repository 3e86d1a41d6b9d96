import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ARTIFACT_KINDS, isArtifactKind } from "@loclab/schemas";
import { z } from "zod";
import { checkedList } from "./checked-list.js";
import type { FileEntry } from "./file-listing.js";

const isEntry = (value: unknown): value is FileEntry => {
  if (typeof value !== "object" || value === null) return false;
  const { path, kind } = value as Record<string, unknown>;
  return typeof path === "string" && (kind === "file" || kind === "symlink");
};

/** What `manifest.json` beside a materialized tree records. */
export const workspaceManifestSchema = z.object({
  schemaVersion: z.literal(1),
  /** `loclab.workspace` (trees made by loclab 0.1.0 say `loclab-workspace`; they are read the same). */
  kind: z.string().refine((kind) => isArtifactKind(kind, ARTIFACT_KINDS.workspace), "not a loclab workspace manifest"),
  repo: z.string(),
  commit: z.string(),
  mirror: z.string(),
  createdAt: z.string(),
  files: checkedList(isEntry, '{ path: string, kind: "file" | "symlink" }'),
});
export type WorkspaceManifest = z.infer<typeof workspaceManifestSchema>;

/**
 * The manifest of a materialized tree's folder, when it is valid and its `tree/` exists. Read
 * synchronously: one small file, where the promise API's open, stat, read and close round
 * trips cost a new process more than the read itself.
 */
export async function readManifest(folder: string): Promise<WorkspaceManifest | undefined> {
  try {
    const parsed = workspaceManifestSchema.safeParse(JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8")));
    return parsed.success && existsSync(join(folder, "tree")) ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
