import { parsePatch } from "@loclab/gold";

/**
 * The files a git diff touches, in order, each once: its post-image path (the pre-image path for
 * a deletion), as the project's patch reader (`parsePatch` of @loclab/gold) reads them — renames,
 * binary changes and quoted paths included.
 */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const file of parsePatch(patch)) {
    const path = file.newPath ?? file.oldPath;
    if (path !== null && !files.includes(path)) files.push(path);
  }
  return files;
}
