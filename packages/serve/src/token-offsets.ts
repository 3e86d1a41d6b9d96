export interface TokenPieces {
  /** The text each token contributes; concatenated they give `text` exactly. */
  pieces: string[];
  /** Where each token's piece starts in `text`, in UTF-16 code units (see below). */
  offsets: number[];
  text: string;
}

/**
 * Splits the detokenized text of `tokens` into one piece per token such that the pieces
 * concatenate to `detokenize(tokens)` exactly, with each piece's start offset.
 *
 * Byte-level tokenizers split one character across tokens (an emoji over two or three): a prefix
 * that ends inside a character detokenizes to U+FFFD, so such a token gets an empty piece and the
 * token that completes the character carries it whole (vLLM shows a partial character the same
 * way, as an empty or replacement string). Offsets count UTF-16 code units (JavaScript strings);
 * for text outside the Basic Multilingual Plane they differ from Python's code points.
 *
 * Detokenization is windowed (a window restarts at every clean boundary, 32 tokens at most) and
 * checked against the whole; if the windowed pieces do not reassemble the whole text, the exact
 * quadratic construction from growing prefixes is used instead.
 */
export function tokenPieces(
  tokens: readonly number[],
  detokenize: (tokens: readonly number[], lastTokens?: readonly number[]) => string,
): TokenPieces {
  const text = detokenize(tokens);
  const ends = windowedEnds(tokens, text, detokenize) ?? exactEnds(tokens, text, detokenize);
  const pieces: string[] = [];
  const offsets: number[] = [];
  let start = 0;
  for (const end of ends) {
    offsets.push(start);
    pieces.push(text.slice(start, end));
    start = end;
  }
  return { pieces, offsets, text };
}

function windowedEnds(
  tokens: readonly number[],
  text: string,
  detokenize: (tokens: readonly number[], lastTokens?: readonly number[]) => string,
): number[] | undefined {
  const ends: number[] = [];
  let windowStart = 0;
  let windowChar = 0;
  let last = 0;
  for (let i = 0; i < tokens.length; i++) {
    const lastTokens = tokens.slice(Math.max(0, windowStart - 8), windowStart);
    const decoded = detokenize(tokens.slice(windowStart, i + 1), lastTokens);
    const clean = !decoded.endsWith("\uFFFD") && text.startsWith(decoded, windowChar);
    if (clean) {
      last = windowChar + decoded.length;
      if (i + 1 - windowStart >= 32) {
        windowStart = i + 1;
        windowChar = last;
      }
    }
    ends.push(last);
  }
  if (last !== text.length) return undefined;
  return ends;
}

function exactEnds(
  tokens: readonly number[],
  text: string,
  detokenize: (tokens: readonly number[]) => string,
): number[] {
  const ends: number[] = [];
  let last = 0;
  for (let i = 0; i < tokens.length; i++) {
    const prefix = detokenize(tokens.slice(0, i + 1));
    let common = 0;
    const limit = Math.min(prefix.length, text.length);
    // A prefix that ends inside a character ends in U+FFFD, which the text does not have there.
    while (common < limit && prefix.charCodeAt(common) === text.charCodeAt(common)) common += 1;
    last = Math.max(last, common);
    ends.push(last);
  }
  ends[ends.length - 1] = text.length;
  return ends;
}
