import { exactGold, type ParsedGoldFile } from "./exact-symbols.js";
import { goldFromFiles, hasPreImage } from "./gold-from-patch.js";
import type { GoldLocations, SourceDefinition, UnplacedFile } from "./gold-types.js";
import { placeHunks, shiftHunk } from "./locate-hunks.js";
import { parsePatch } from "./parse-patch.js";

export interface GoldAtPreImageOptions {
  /** Named in errors and carried into the result. */
  instanceId: string;
  /** The text of a gold file at base commit (its pre-image), or undefined when it is not there. */
  preImage: (path: string) => string | undefined;
  /**
   * The definitions of a pre-image (a parser's, e.g. `pythonDefinitions` of @loclab/python), or
   * undefined for a language that is not parsed. Without it, no exact symbols are made.
   */
  definitions?: (path: string, text: string) => readonly SourceDefinition[] | undefined;
}

/**
 * Gold locations of a patch in the lines of the real files at base commit (docs/definitions.md
 * §2): each gold file's hunks are placed on its pre-image as `git apply` places them
 * (`placeHunks`), so a patch that applies at an offset gives spans where the code really is,
 * each span and hunk recording its offset; with `definitions`, the exact symbols around the
 * changed lines (`exactGold`). A file whose pre-image is missing or where a hunk matches
 * nowhere keeps the `@@` numbers and is listed in `unplaced` with the reason.
 *
 * Pure: the caller reads the files (from a checkout or a mirror) and passes the parser.
 *
 * @example goldAtPreImage(row.patch, { instanceId, preImage: (path) => texts.get(path) }).spans[0].offset
 */
export function goldAtPreImage(patch: string, options: GoldAtPreImageOptions): GoldLocations {
  const files = parsePatch(patch, { instanceId: options.instanceId });
  const offsets = new Map<number, number[]>();
  const unplaced: UnplacedFile[] = [];
  // Placed files, with the index in `GoldLocations.hunks` of their first hunk (every file's hunks are listed there, in order).
  const placed: { file: number; path: string; text: string; firstHunk: number }[] = [];
  let firstHunk = 0;
  for (const [index, file] of files.entries()) {
    const start = firstHunk;
    firstHunk += file.hunks.length;
    if (!hasPreImage(file) || file.binary || file.oldPath === null) continue;
    const text = options.preImage(file.oldPath);
    if (text === undefined) {
      unplaced.push({ path: file.oldPath, reason: "the file is not in the tree at base commit" });
      continue;
    }
    const placement = placeHunks(text, file.hunks);
    if (!placement.applies) {
      unplaced.push({ path: file.oldPath, reason: placement.reason });
      continue;
    }
    offsets.set(
      index,
      placement.hunks.map((hunk) => hunk.offset),
    );
    placed.push({ file: index, path: file.oldPath, text, firstHunk: start });
  }
  const gold = goldFromFiles(files, options.instanceId, offsets);
  gold.lines = "pre-image";
  gold.unplaced = unplaced;
  const definitions = options.definitions;
  if (definitions) {
    const parsedFiles: ParsedGoldFile[] = placed.map(({ file, path, text, firstHunk: base }) => {
      const fileOffsets = offsets.get(file) as number[];
      return {
        path,
        hunks: (files[file]?.hunks ?? []).map((hunk, position) => ({
          hunk: shiftHunk(hunk, fileOffsets[position] ?? 0),
          index: base + position,
        })),
        definitions: definitions(path, text),
      };
    });
    gold.exact = exactGold(parsedFiles);
  }
  return gold;
}
