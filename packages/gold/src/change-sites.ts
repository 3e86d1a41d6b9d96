import type { Hunk } from "./patch-types.js";

/** A place a hunk changes the pre-image: a removed line, or an insertion between two lines. */
export type ChangeSite =
  | { kind: "removed"; line: number }
  | {
      kind: "insertion";
      /** The pre-image line the inserted lines follow (0: the top of the file). */
      after: number;
      /**
       * The last line at or above `after` that is not blank, as far as the hunk's context shows
       * (`after` itself when the context does not reach further): code appended after a
       * definition's trailing blank lines still follows that definition.
       */
      afterCode: number;
      /** Indentation (columns) of the first inserted line that is not blank; undefined when all are blank. */
      indent: number | undefined;
    };

/**
 * The change sites of one hunk, in its (real) pre-image numbers: every removed line, and every
 * block of added lines with no removed line in it (an insertion). Pure.
 */
export function changeSites(hunk: Hunk): ChangeSite[] {
  const sites: ChangeSite[] = [];
  let previousOld = hunk.oldLines === 0 ? hunk.oldStart : hunk.oldStart - 1;
  let lastCode = previousOld;
  let block: { after: number; afterCode: number; removed: boolean; indent: number | undefined } | undefined;
  const close = () => {
    if (block && !block.removed)
      sites.push({ kind: "insertion", after: block.after, afterCode: block.afterCode, indent: block.indent });
    block = undefined;
  };
  for (const line of hunk.lines) {
    if (line.kind === "context") {
      close();
      previousOld = line.oldLine ?? previousOld + 1;
      if (line.text.trim() !== "") lastCode = previousOld;
      continue;
    }
    block ??= { after: previousOld, afterCode: Math.min(lastCode, previousOld), removed: false, indent: undefined };
    if (line.kind === "removed") {
      const number = line.oldLine ?? previousOld + 1;
      block.removed = true;
      sites.push({ kind: "removed", line: number });
      previousOld = number;
      if (line.text.trim() !== "") lastCode = number;
    } else if (block.indent === undefined && line.text.trim() !== "") {
      block.indent = indentation(line.text);
    }
  }
  close();
  return sites;
}

/** Leading whitespace in characters, as a parser's column counts it (a tab is one). */
function indentation(text: string): number {
  return text.length - text.trimStart().length;
}
