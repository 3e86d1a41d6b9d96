import type { GoldHunk, GoldLocations, GoldSpan, GoldSymbol } from "./gold-types.js";
import { parsePatch } from "./parse-patch.js";
import type { FilePatch, Hunk } from "./patch-types.js";
import { changeSites } from "./change-sites.js";
import { shiftHunk } from "./locate-hunks.js";
import { symbolFromHunkSection } from "./symbols.js";

export interface GoldFromPatchOptions {
  /** Named in errors and carried into the result. */
  instanceId: string;
}

/**
 * Gold locations of one gold patch, exactly as docs/definitions.md §2 defines them: gold files (a
 * pre-image exists: modified, deleted, renamed — under their pre-image path), created files
 * apart, pre-image line spans (runs of removed lines; insertion anchors), hunks, added lines
 * per hunk, and symbols approximated from `@@` headers.
 *
 * An empty patch gives empty gold (such an instance is excluded from metrics, docs/definitions.md §3).
 * A patch that is not a unified diff throws `PatchParseError` naming the instance and line.
 *
 * @example goldFromPatch(row.patch, { instanceId: row.instance_id }).files // ["astropy/modeling/separable.py"]
 */
export function goldFromPatch(patch: string, options: GoldFromPatchOptions): GoldLocations {
  return goldFromFiles(parsePatch(patch, { instanceId: options.instanceId }), options.instanceId);
}

/**
 * Gold of parsed file diffs. `offsets`, per file index, gives each hunk's offset on the real
 * pre-image (`placeHunks`): spans then use the real lines, and hunks and spans record it.
 */
export function goldFromFiles(
  files: readonly FilePatch[],
  instanceId: string,
  offsets?: ReadonlyMap<number, readonly number[]>,
): GoldLocations {
  const gold: GoldLocations = {
    instanceId,
    files: [],
    created: [],
    deleted: [],
    renamed: [],
    binary: [],
    spans: [],
    hunks: [],
    addedLines: [],
    symbols: [],
  };
  for (const [index, file] of files.entries()) addFile(gold, file, offsets?.get(index));
  return gold;
}

/** Whether a file diff has a pre-image at base commit (modified, deleted, renamed): a gold file (docs/definitions.md §2). */
export function hasPreImage(file: FilePatch): boolean {
  return file.oldPath !== null && file.status !== "added" && file.status !== "copied";
}

function addFile(gold: GoldLocations, file: FilePatch, offsets: readonly number[] | undefined): void {
  const preImage = hasPreImage(file);
  const path = (preImage ? file.oldPath : file.newPath) ?? "";
  if (preImage) pushUnique(gold.files, path);
  else if (file.newPath !== null) pushUnique(gold.created, file.newPath);
  if (file.status === "deleted") pushUnique(gold.deleted, path);
  if (file.status === "renamed" && file.oldPath !== null && file.newPath !== null) {
    gold.renamed.push({ from: file.oldPath, to: file.newPath });
  }
  if (file.binary) pushUnique(gold.binary, path);
  const seenSymbols = new Set(gold.symbols.map((symbol) => `${symbol.path}\0${symbol.name}`));
  for (const [position, hunk] of file.hunks.entries()) {
    const hunkIndex = gold.hunks.length;
    const offset = offsets?.[position];
    gold.hunks.push(offset === undefined ? displayHunk(path, hunk) : { ...displayHunk(path, hunk), offset });
    const added = hunk.lines.filter((line) => line.kind === "added").map((line) => line.text);
    if (added.length > 0 && file.newPath !== null)
      gold.addedLines.push({ path: file.newPath, hunk: hunkIndex, lines: added });
    if (!preImage) continue;
    if (offset === undefined) gold.spans.push(...spansOfHunk(path, hunk, hunkIndex));
    else gold.spans.push(...spansOfHunk(path, shiftHunk(hunk, offset), hunkIndex).map((span) => ({ ...span, offset })));
    const symbol = symbolFromHunkSection(hunk.section);
    if (symbol && !seenSymbols.has(`${path}\0${symbol.name}`)) {
      seenSymbols.add(`${path}\0${symbol.name}`);
      gold.symbols.push({
        path,
        ...symbol,
        hunk: hunkIndex,
        approximate: true,
        source: "hunk-header",
      } satisfies GoldSymbol);
    }
  }
}

/**
 * The spans of one hunk, from its change sites (`changeSites`): removed lines form one span
 * while their pre-image numbers are consecutive (an added line between two removed ones does
 * not split the run: in the pre-image they are adjacent; a context line does, since it has a
 * number of its own). An insertion is anchored on the last pre-image line before it, or line 1
 * at the top of the file.
 */
export function spansOfHunk(path: string, hunk: Hunk, hunkIndex: number): GoldSpan[] {
  const spans: GoldSpan[] = [];
  let run: GoldSpan | undefined;
  for (const site of changeSites(hunk)) {
    if (site.kind === "insertion") {
      const anchor = Math.max(site.after, 1);
      spans.push({ path, startLine: anchor, endLine: anchor, kind: "insertion", hunk: hunkIndex });
      run = undefined;
    } else if (run && run.endLine === site.line - 1) run.endLine = site.line;
    else {
      run = { path, startLine: site.line, endLine: site.line, kind: "removed", hunk: hunkIndex };
      spans.push(run);
    }
  }
  return spans;
}

function displayHunk(path: string, hunk: Hunk): GoldHunk {
  const marker = { context: " ", removed: "-", added: "+" } as const;
  const text = hunk.lines
    .map((line) => `${marker[line.kind]}${line.text}${line.noNewlineAtEnd ? "\n\\ No newline at end of file" : ""}`)
    .join("\n");
  return {
    path,
    oldStart: hunk.oldStart,
    oldLines: hunk.oldLines,
    newStart: hunk.newStart,
    newLines: hunk.newLines,
    section: hunk.section,
    text,
  };
}

function pushUnique(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}
