/**
 * The files a unified git diff touches, in order, each once: the `b/` side of each `diff --git`
 * header (the `a/` side for a deletion). Paths with spaces are quoted by git; the quotes are kept
 * off. Pure.
 */
export function patchFiles(patch: string): string[] {
  const files: string[] = [];
  for (const match of patch.matchAll(/^diff --git (?:"?a\/(.+?)"?) (?:"?b\/(.+?)"?)$/gm)) {
    const file = match[2] ?? match[1];
    if (file !== undefined && !files.includes(file)) files.push(file);
  }
  return files;
}
