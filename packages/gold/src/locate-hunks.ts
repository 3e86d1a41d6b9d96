import type { Hunk, HunkLine } from "./patch-types.js";

/** Where one hunk of a file diff applies in the real pre-image. */
export interface HunkPlacement {
  /** 1-based pre-image line the hunk's first context-or-removed line is at (the `@@` number when the offset is 0). */
  oldStart: number;
  /** Real start − the `@@` header's start; `git apply -v` prints it as "(offset N lines)". */
  offset: number;
}

/** The result of placing every hunk of one file diff on its pre-image. */
export type FilePlacement =
  | { applies: true; hunks: HunkPlacement[] }
  | {
      applies: false;
      /** Index of the first hunk that matches nowhere (the ones before it were placed). */
      failedHunk: number;
      reason: string;
    };

interface ImageLine {
  text: string;
  /** The line ends with `\n` (only the file's last line may not). */
  newline: boolean;
  /** 1-based line of the original pre-image, or 0 for a line an earlier hunk added. */
  origin: number;
}

/**
 * Places the hunks of one file diff on the file's pre-image the way `git apply` (without
 * `--unidiff-zero`, `-C` or whitespace options) does, and reports where each one matched.
 *
 * git's rules (apply.c, `apply_one_fragment` and `find_pos`), followed here:
 * - hunks are applied in order to an image that each applied hunk changes, and a hunk is looked
 *   for from its `+` start (`newStart − 1`, in that changing image), which is where it belongs
 *   once the earlier hunks have moved the text;
 * - a hunk's pre-image (its context and removed lines) must match byte for byte, line endings
 *   and a missing final newline included; no fuzz, since git's default context limit is
 *   unbounded;
 * - a hunk that starts at line 0 or 1 must match at the top of the file, and one with no
 *   trailing context must match at its end;
 * - otherwise the search goes from the expected line alternately one line further down, then
 *   one up (`pos, pos+1, pos−1, pos+2, …`), and the first match wins, however far.
 *
 * The offset reported is in pre-image lines: the real 1-based line of the hunk's first
 * pre-image line minus the header's `oldStart`. It equals git's printed offset for every
 * well-formed patch (its `+` starts are its `-` starts shifted by the earlier hunks).
 *
 * Pure. Cost: O(lines × hunk size) per hunk in the worst case (a hunk that matches nowhere).
 *
 * @example placeHunks("a\nb\nc\n", parsePatch(patch)[0].hunks) // { applies: true, hunks: [{ oldStart: 2, offset: 1 }] }
 */
export function placeHunks(preImage: string, hunks: readonly Hunk[]): FilePlacement {
  const image = imageLines(preImage);
  const placements: HunkPlacement[] = [];
  for (const [index, hunk] of hunks.entries()) {
    const before = hunk.lines.filter((line) => line.kind !== "added");
    const leading = countWhile(hunk.lines, (line) => line.kind === "context");
    const trailing = countWhile([...hunk.lines].reverse(), (line) => line.kind === "context");
    const matchBeginning = hunk.oldStart <= 1;
    const matchEnd = trailing === 0 && leading < hunk.lines.length;
    const start = hunk.newStart > 0 ? hunk.newStart - 1 : 0;
    const at = findPosition(image, before, start, matchBeginning, matchEnd);
    if (at < 0) {
      return {
        applies: false,
        failedHunk: index,
        reason: `hunk #${index + 1} (@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@) matches no lines of the pre-image`,
      };
    }
    // The real line of the hunk's first pre-image line; a hunk with none (an insertion into an
    // empty file) counts from the line it follows, as its header does.
    const first = before.length > 0 ? (image[at] as ImageLine).origin : 0;
    const origin = first > 0 ? first : originAbove(image, at) + (before.length > 0 ? 1 : 0);
    placements.push({ oldStart: origin, offset: origin - hunk.oldStart });
    // The hunk's post-image replaces its pre-image; context lines keep their original numbers.
    const replacement: ImageLine[] = [];
    let consumed = 0;
    for (const line of hunk.lines) {
      if (line.kind === "added") replacement.push({ text: line.text, newline: !line.noNewlineAtEnd, origin: 0 });
      else if (line.kind === "context") replacement.push({ ...(image[at + consumed] as ImageLine) });
      if (line.kind !== "added") consumed += 1;
    }
    image.splice(at, before.length, ...replacement);
  }
  return { applies: true, hunks: placements };
}

/** The hunk with every pre-image line number moved by `offset` (the hunk as it applies). */
export function shiftHunk(hunk: Hunk, offset: number): Hunk {
  if (offset === 0) return hunk;
  return {
    ...hunk,
    oldStart: hunk.oldStart + offset,
    lines: hunk.lines.map(
      (line): HunkLine => (line.oldLine === undefined ? line : { ...line, oldLine: line.oldLine + offset }),
    ),
  };
}

function imageLines(text: string): ImageLine[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const last = parts.pop() as string;
  const lines = parts.map((part, index) => ({ text: part, newline: true, origin: index + 1 }));
  if (last !== "") lines.push({ text: last, newline: false, origin: lines.length + 1 });
  return lines;
}

function findPosition(
  image: readonly ImageLine[],
  before: readonly HunkLine[],
  expected: number,
  matchBeginning: boolean,
  matchEnd: boolean,
): number {
  if (before.length > image.length) return -1;
  const last = image.length - before.length;
  if (matchBeginning || matchEnd) {
    // git starts at the one line that can match and never wanders.
    const only = matchBeginning ? 0 : last;
    if (matchBeginning && matchEnd && last !== 0) return -1;
    return matches(image, before, only) ? only : -1;
  }
  const start = Math.min(Math.max(expected, 0), last);
  if (matches(image, before, start)) return start;
  for (let distance = 1; start + distance <= last || start - distance >= 0; distance += 1) {
    if (start + distance <= last && matches(image, before, start + distance)) return start + distance;
    if (start - distance >= 0 && matches(image, before, start - distance)) return start - distance;
  }
  return -1;
}

function matches(image: readonly ImageLine[], before: readonly HunkLine[], at: number): boolean {
  for (const [offset, line] of before.entries()) {
    const target = image[at + offset];
    if (!target || target.text !== line.text || target.newline !== !line.noNewlineAtEnd) return false;
  }
  return true;
}

/** The original line number of the nearest original line above `at` (0 at the top). */
function originAbove(image: readonly ImageLine[], at: number): number {
  for (let index = at - 1; index >= 0; index -= 1) {
    const origin = (image[index] as ImageLine).origin;
    if (origin > 0) return origin;
  }
  return 0;
}

function countWhile<T>(items: readonly T[], test: (item: T) => boolean): number {
  let count = 0;
  while (count < items.length && test(items[count] as T)) count += 1;
  return count;
}
