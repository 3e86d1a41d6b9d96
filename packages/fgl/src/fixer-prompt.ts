/** The fixer's prompt for one candidate, with where y*'s added lines are in it. */
export interface FixerPrompt {
  text: string;
  /** Character ranges [start, end) of y*'s added lines in `text`: from the `+` marker up to the newline (not included). */
  added: Array<[number, number]>;
  /** Where the patch starts in `text`. */
  patchStart: number;
}

export interface FixerPromptInput {
  repo: string;
  issue: string;
  /** ctx(z), as rendered. */
  context: string;
  /** y*, the verified patch (unified diff). */
  patch: string;
}

/**
 * The fixer's prompt (docs/definitions.md §5): the issue, the code the candidate shows, and the
 * verified patch as the answer, so that one forward pass gives log p(y* | x, ctx(z)). Plain
 * text for a completions endpoint (no chat template: the same prompt means the same thing to
 * every server). y+ are the patch's `+` lines that are not a `+++` file header; each range
 * covers the marker and the line's text, not its newline: the test model's tokenizer (GPT-2
 * style) merges a newline with the next line's indentation (`"\n        "`), so a token starting
 * at the newline belongs as much to the next line; measured on the 41 real tasks' patches, 52
 * of 206 added lines end in such a token (benchmarks/fgl-alignment.mjs).
 */
export function fixerPrompt(input: FixerPromptInput): FixerPrompt {
  const head =
    `You are fixing an issue in the repository ${input.repo}.\n\n` +
    `## Issue\n\n${input.issue.trimEnd()}\n\n` +
    `## Code\n\n${input.context === "" ? "(none shown)\n" : input.context}\n` +
    `## Patch that fixes the issue\n\n`;
  const patch = input.patch.endsWith("\n") ? input.patch : `${input.patch}\n`;
  const text = `${head}${patch}`;
  return { text, added: addedLineRanges(patch, head.length), patchStart: head.length };
}

/** Ranges [start, end) of a patch's added lines (`+` but not `+++ `), marker included, newline not, shifted by `offset`. */
export function addedLineRanges(patch: string, offset = 0): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let start = 0;
  let inHeader = true;
  while (start < patch.length) {
    const newline = patch.indexOf("\n", start);
    const end = newline < 0 ? patch.length : newline + 1;
    const line = patch.slice(start, end);
    if (line.startsWith("diff --git ")) inHeader = true;
    else if (line.startsWith("@@")) inHeader = false;
    else if (!inHeader && line.startsWith("+")) ranges.push([offset + start, offset + (newline < 0 ? end : newline)]);
    start = end;
  }
  return ranges;
}
