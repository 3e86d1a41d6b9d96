import { existsSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type FileEntry, gitIndexFiles, walkFiles } from "./file-listing.js";
import { WorkspaceError } from "./tool-error.js";
import { type ToolLimits, toolLimits } from "./tool-limits.js";
import { Workspace } from "./workspace.js";
import { readManifest } from "./workspace-manifest.js";

export interface OpenWorkspaceOptions {
  /** The checkout or folder. */
  root: string;
  /**
   * Which files count: `"git"` the files git tracks there (`git ls-files`), `"walk"` every
   * regular file and link under the folder (`.git` skipped), `"auto"` (default) git when
   * the folder has a `.git`, else walk.
   */
  files?: "auto" | "git" | "walk";
  limits?: Partial<ToolLimits>;
}

/**
 * A workspace over a folder already on disk: a git working tree (the files of its index) or
 * a plain folder such as an installed package (every file). Nothing is read until a tool
 * needs it. Throws `WorkspaceError("not-a-directory")` when `root` is not a folder.
 *
 * @example const workspace = await openWorkspace({ root: "/usr/lib/python3/dist-packages/django" });
 */
export async function openWorkspace(options: OpenWorkspaceOptions): Promise<Workspace> {
  const limits = toolLimits(options.limits);
  let info;
  try {
    info = await stat(options.root);
  } catch {
    throw new WorkspaceError("not-a-directory", `${options.root} does not exist`);
  }
  if (!info.isDirectory()) throw new WorkspaceError("not-a-directory", `${options.root} is not a directory`);
  const root = await realpath(options.root);
  const mode = options.files ?? "auto";
  // A tree of the workspace cache (`<cache>/<owner>__<name>/<commit>/tree`): its manifest
  // lists the files, and its content pack and stored import graph are used.
  if (mode === "auto" && basename(root) === "tree") {
    const folder = dirname(root);
    const manifest = await readManifest(folder);
    if (manifest)
      return workspaceFromFiles({
        root,
        files: manifest.files,
        repo: manifest.repo,
        commit: manifest.commit,
        limits,
        cacheFolder: folder,
      });
  }
  const useGit = mode === "git" || (mode === "auto" && existsSync(join(root, ".git")));
  const listFiles = useGit ? () => gitIndexFiles(root, { safeDirectory: root }) : () => walkFiles(root);
  return new Workspace({ root, source: useGit ? "git-index" : "directory", limits, listFiles });
}

/** A workspace over a folder whose file list is already known (a materialized tree). */
export function workspaceFromFiles(options: {
  root: string;
  files: readonly FileEntry[];
  limits?: Partial<ToolLimits>;
  repo?: string;
  commit?: string;
  /** See `WorkspaceInit.cacheFolder`: only for a tree that never changes. */
  cacheFolder?: string;
}): Workspace {
  const files = [...options.files];
  return new Workspace({
    root: options.root,
    source: "git-commit",
    limits: toolLimits(options.limits),
    listFiles: async () => files,
    ...(options.repo !== undefined ? { repo: options.repo } : {}),
    ...(options.commit !== undefined ? { commit: options.commit } : {}),
    ...(options.cacheFolder !== undefined ? { cacheFolder: options.cacheFolder } : {}),
  });
}
