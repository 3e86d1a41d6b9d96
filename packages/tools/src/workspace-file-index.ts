import { lstatSync } from "node:fs";
import { join } from "node:path";
import { type FileEntry, comparePaths } from "./file-listing.js";

/** Where a workspace's file list comes from. */
export type WorkspaceSource =
  /** A tree materialized from a git mirror at one commit: the files of that commit's tree. */
  | "git-commit"
  /** A git working tree opened in place: the files of its index (`git ls-files`). */
  | "git-index"
  /** A plain directory: every regular file and symbolic link under it. */
  | "directory";

/** A workspace's file list, indexed once: sorted entries, by path, its folders, and the folders not to trust. */
export interface FileIndex {
  entries: FileEntry[];
  paths: string[];
  byPath: Map<string, FileEntry>;
  folders: Set<string>;
  /** Folders of the listing that were not real folders when it was made (a link, gone): their files are read with the full check. */
  untrustedFolders: Set<string>;
}

/** Whether no folder on `path`'s way from the root was found untrusted when the listing was made. */
export function foldersTrusted(index: FileIndex, path: string): boolean {
  if (index.untrustedFolders.size === 0) return true;
  for (let slash = path.indexOf("/"); slash > 0; slash = path.indexOf("/", slash + 1))
    if (index.untrustedFolders.has(path.slice(0, slash))) return false;
  return true;
}

/** The index of a listing (sorted if it is not), with every folder checked once (see below). */
export function buildFileIndex(entries: FileEntry[], root: string, source: WorkspaceSource): FileIndex {
  // Listings usually come sorted (git's, a manifest's): then no sort is needed.
  let inOrder = true;
  for (let i = 1; i < entries.length && inOrder; i += 1)
    inOrder = comparePaths((entries[i - 1] as FileEntry).path, (entries[i] as FileEntry).path) < 0;
  const sorted = inOrder ? [...entries] : [...entries].sort((a, b) => comparePaths(a.path, b.path));
  const folders = new Set<string>([""]);
  for (const { path } of sorted) {
    let slash = path.lastIndexOf("/");
    while (slash > 0) {
      const folder = path.slice(0, slash);
      if (folders.has(folder)) break;
      folders.add(folder);
      slash = folder.lastIndexOf("/");
    }
  }
  // Once per listing: every folder is checked to be a real folder (not a link, which could
  // lead out of the root), so that reads of the files below it need no realpath each. A tree
  // materialized from git (or a shuffled copy of one) needs no check: git checkout-index makes
  // every folder itself and never writes beyond a symbolic link, and the tree is read-only.
  const untrustedFolders = new Set<string>();
  for (const folder of source === "git-commit" ? [] : folders) {
    if (folder === "") continue;
    try {
      if (!lstatSync(join(root, folder)).isDirectory()) untrustedFolders.add(folder);
    } catch {
      untrustedFolders.add(folder);
    }
  }
  return {
    entries: sorted,
    paths: sorted.map((entry) => entry.path),
    byPath: new Map(sorted.map((entry) => [entry.path, entry])),
    folders,
    untrustedFolders,
  };
}
