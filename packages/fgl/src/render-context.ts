import type { CodeSource } from "./code-source.js";
import type { FglLocation } from "./fgl-location.js";

/** Counts the tokens of a text with the scoring server's tokenizer (`/tokenize`). */
export type TokenCounter = (text: string) => Promise<number>;

export interface RenderedContext {
  /** ctx(z): one block per location, `### path (lines a-b)` and numbered lines. */
  text: string;
  /** tok(z): the tokens of `text`, counted by the server. */
  tokens: number;
  /** What was shown: each location as far as it fit (a cut location ends early). */
  shown: FglLocation[];
  /** Locations that did not fit in the budget at all. */
  omitted: FglLocation[];
  /** The location cut short by the budget, if any. */
  cut?: FglLocation;
}

/** A location that cannot be rendered: its file is not at base commit, or its lines are not known. */
export class RenderError extends Error {
  constructor(
    readonly location: FglLocation,
    message: string,
  ) {
    super(message);
    this.name = "RenderError";
  }
}

export interface RenderOptions {
  /** Token budget of ctx(z); default 6,000. */
  budget?: number;
  countTokens: TokenCounter;
}

/** Six digits, right-aligned, as `cat -n` numbers lines: what agents are used to reading. */
function numbered(line: number, text: string): string {
  return `${String(line).padStart(6)}\t${text}`;
}

function block(location: FglLocation, lines: readonly string[], endLine: number): string {
  const body = lines
    .slice(0, endLine - location.startLine + 1)
    .map((text, i) => numbered(location.startLine + i, text));
  return `### ${location.path} (lines ${location.startLine}-${endLine})\n${body.join("\n")}\n`;
}

/**
 * Renders ctx(z) (docs/definitions.md §5): the locations in the candidate's order, each under a
 * path header with its line range and numbered lines, as long as the whole stays within the
 * token budget, counted exactly with the server's tokenizer on the text so far. The location
 * that crosses the budget is cut at the last line that fits (found by bisection on its line
 * count); the locations after it are omitted. A range past the file's end is clipped to it.
 * Errors (`RenderError`): a path absent at base commit, a range wholly past the end, or lines a
 * partial source (`observed`) does not have.
 */
export async function renderContext(
  locations: readonly FglLocation[],
  code: CodeSource,
  options: RenderOptions,
): Promise<RenderedContext> {
  const budget = options.budget ?? 6000;
  const blocks: Array<{ location: FglLocation; lines: string[] }> = [];
  for (const location of locations) {
    const file = await code.file(location.path);
    if (!file) {
      throw new RenderError(
        location,
        code.kind === "checkout"
          ? `${location.path} does not exist at base commit`
          : `${location.path} was not seen in the trajectory nor in the patch (give a checkout to render it)`,
      );
    }
    const end = Math.min(location.endLine, file.lines.length);
    if (location.startLine > end)
      throw new RenderError(
        location,
        `${location.path}: lines ${location.startLine}-${location.endLine} are past the file's end (${file.lines.length} lines)`,
      );
    const lines: string[] = [];
    for (let line = location.startLine; line <= end; line++) {
      const text = file.lines[line - 1];
      if (text === undefined)
        throw new RenderError(
          location,
          `${location.path}: line ${line} was not seen in the trajectory nor in the patch (give a checkout to render it)`,
        );
      lines.push(text);
    }
    blocks.push({ location: { ...location, endLine: end }, lines });
  }
  let text = "";
  let tokens = 0;
  const shown: FglLocation[] = [];
  for (let i = 0; i < blocks.length; i++) {
    const { location, lines } = blocks[i]!;
    const whole = text + block(location, lines, location.endLine);
    const count = await options.countTokens(whole);
    if (count <= budget) {
      text = whole;
      tokens = count;
      shown.push(location);
      continue;
    }
    // Bisection on how many of its lines fit: the most k with tokens(text + first k lines) ≤ budget.
    let low = 0;
    let high = lines.length - 1;
    let best: { text: string; tokens: number } | undefined;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      const candidate = text + block(location, lines, location.startLine + mid - 1);
      const n = await options.countTokens(candidate);
      if (n <= budget) {
        low = mid;
        best = { text: candidate, tokens: n };
      } else high = mid - 1;
    }
    const cut = low > 0 ? { ...location, endLine: location.startLine + low - 1 } : undefined;
    if (cut && best) {
      text = best.text;
      tokens = best.tokens;
      shown.push(cut);
    }
    return {
      text,
      tokens,
      shown,
      omitted: blocks.slice(cut ? i + 1 : i).map((b) => b.location),
      ...(cut ? { cut } : {}),
    };
  }
  return { text, tokens, shown, omitted: [] };
}
