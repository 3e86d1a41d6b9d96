import type { GoldHunk, GoldLocations, GoldSpan, GoldSymbol } from "./gold-types.js";
import { parsePatch } from "./parse-patch.js";
import type { FilePatch, Hunk } from "./patch-types.js";
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
export function goldFromFiles(files: readonly FilePatch[], instanceId: string, offsets?: ReadonlyMap<number, readonly number[]>): GoldLocations {
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

function addFile(gold: GoldLocations, file: FilePatch, offsets: readonly number[] | undefined): void {
  const hasPreImage = file.oldPath !== null && file.status !== "added" && file.status !== "copied";
  const path = (hasPreImage ? file.oldPath : file.newPath) ?? "";
  if (hasPreImage) pushUnique(gold.files, path);
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
    if (added.length > 0 && file.newPath !== null) gold.addedLines.push({ path: file.newPath, hunk: hunkIndex, lines: added });
    if (!hasPreImage) continue;
    if (offset === undefined) gold.spans.push(...spansOfHunk(path, hunk, hunkIndex));
    else gold.spans.push(...spansOfHunk(path, shiftHunk(hunk, offset), hunkIndex).map((span) => ({ ...span, offset })));
    const symbol = symbolFromHunkSection(hunk.section);
    if (symbol && !seenSymbols.has(`${path}\0${symbol.name}`)) {
      seenSymbols.add(`${path}\0${symbol.name}`);
      gold.symbols.push({ path, ...symbol, hunk: hunkIndex, approximate: true, source: "hunk-header" } satisfies GoldSymbol);
    }
  }
}

/**
 * The spans of one hunk. Removed lines form one span while their pre-image numbers are
 * consecutive (an added line between two removed ones does not split the run: in the
 * pre-image they are adjacent). A block of changes with no removed line is an insertion,
 * anchored on the last pre-image line before it, or line 1 at the top of the file.
 */
export function spansOfHunk(path: string, hunk: Hunk, hunkIndex: number): GoldSpan[] {
  const spans: GoldSpan[] = [];
  // Pre-image line just before the current position (0 = above line 1).
  let previousOld = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
  let run: GoldSpan | undefined;
  let block: { anchor: number; removed: boolean } | undefined;
  const closeBlock = () => {
    if (block && !block.removed) {
      const anchor = Math.max(block.anchor, 1);
      spans.push({ path, startLine: anchor, endLine: anchor, kind: "insertion", hunk: hunkIndex });
    }
    block = undefined;
    run = undefined;
  };
  for (const line of hunk.lines) {
    if (line.kind === "context") {
      closeBlock();
      previousOld = line.oldLine ?? previousOld;
      continue;
    }
    block ??= { anchor: previousOld, removed: false };
    if (line.kind === "removed") {
      const number = line.oldLine ?? previousOld + 1;
      block.removed = true;
      if (run && run.endLine === number - 1) run.endLine = number;
      else {
        run = { path, startLine: number, endLine: number, kind: "removed", hunk: hunkIndex };
        spans.push(run);
      }
      previousOld = number;
    }
  }
  closeBlock();
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
