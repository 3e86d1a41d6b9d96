import { pythonSplitLines } from "./python-splitlines.js";

/**
 * A gold location in SHERLOC's schema (its field names kept, so its output files and
 * fixtures compare as written): a file, an inclusive pre-patch line range, and its
 * `path:L<start>-L<end>` rendering.
 */
export interface SherlocGoldLocation {
  file_path: string;
  start_line: number;
  end_line: number;
  raw: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const NO_NEWLINE_MARKER = "\\ No newline at end of file";

/**
 * SHERLOC's gold locations of a patch (NVIDIA-NeMo/Skills, `recipes/sherloc/inference/
 * sherloc_utils/patch_processor.py` at 76cddfb, `PatchProcessor.extract_locations_from_patch`),
 * replayed line for line so that its answers are SHERLOC's on every patch, odd cases included
 * (docs/definitions.md §3, "SHERLOC's evaluator"):
 *
 * - lines come from Python's `splitlines()`; an empty line and `\ No newline at end of file`
 *   are skipped (they advance nothing);
 * - `--- ` starts a file (the `a/` or `b/` prefix dropped; `/dev/null` marks a created file,
 *   named by the next `+++ `), wherever it occurs, even inside a hunk;
 * - a hunk header sets the pre-patch line counter; a removed line (`-`, not `---`) is a
 *   location at the counter; an added line (`+`, not `+++`) is a location at the counter
 *   (its insertion point) unless the previous location is in the same file and ends just
 *   above it; any other line (context, `diff --git`, a removed `--…` line read as `---`)
 *   advances the counter;
 * - created files give no location (`excludeNewFiles`, SHERLOC's default), else line 1 once;
 * - locations are merged in order when the next one in the same file starts at most one line
 *   after the previous one ends.
 *
 * @example sherlocGoldLocations("--- a/x.py\n+++ b/x.py\n@@ -3,2 +3,2 @@\n-a\n+b\n c\n")
 * // [{ file_path: "x.py", start_line: 3, end_line: 3, raw: "x.py:L3-L3" }]
 */
export function sherlocGoldLocations(
  patch: string,
  options: { excludeNewFiles?: boolean } = {},
): SherlocGoldLocation[] {
  const excludeNewFiles = options.excludeNewFiles ?? true;
  if (!patch) return [];
  const locations: SherlocGoldLocation[] = [];
  let currentFile: string | null = null;
  let isNewFile = false;
  let originalLine = 0;
  const at = (file: string, line: number): SherlocGoldLocation => ({
    file_path: file,
    start_line: line,
    end_line: line,
    raw: `${file}:L${line}-L${line}`,
  });
  for (const line of pythonSplitLines(patch)) {
    if (line.startsWith("--- ")) {
      const path = line.slice(4);
      if (path === "/dev/null") {
        isNewFile = true;
        currentFile = null;
      } else {
        currentFile = stripSide(path);
        isNewFile = false;
      }
    } else if (line.startsWith("+++ ")) {
      if (isNewFile) currentFile = stripSide(line.slice(4));
    } else if (line.startsWith("@@ ")) {
      const match = HUNK_HEADER.exec(line);
      if (match) originalLine = Number(match[1]);
    } else if (currentFile && line) {
      if (currentFile === "/dev/null" || line === NO_NEWLINE_MARKER) continue;
      if (line.startsWith("-") && !line.startsWith("---")) {
        locations.push(at(currentFile, originalLine));
        originalLine += 1;
      } else if (line.startsWith("+") && !line.startsWith("+++")) {
        if (isNewFile) {
          const file = currentFile;
          if (!excludeNewFiles && !locations.some((location) => location.file_path === file))
            locations.push(at(file, 1));
        } else {
          // An insertion right below a removed line of the same file is already covered by it.
          const last = locations.at(-1);
          if (!last || last.file_path !== currentFile || last.end_line !== originalLine - 1)
            locations.push(at(currentFile, originalLine));
        }
      } else if (!isNewFile) {
        originalLine += 1;
      }
    }
  }
  const merged: SherlocGoldLocation[] = [];
  for (const location of locations) {
    const last = merged.at(-1);
    if (last && location.file_path === last.file_path && location.start_line <= last.end_line + 1) {
      last.end_line = Math.max(last.end_line, location.end_line);
      last.raw = `${last.file_path}:L${last.start_line}-L${last.end_line}`;
    } else {
      merged.push(location);
    }
  }
  return merged;
}

function stripSide(path: string): string {
  return path.startsWith("a/") || path.startsWith("b/") ? path.slice(2) : path;
}
