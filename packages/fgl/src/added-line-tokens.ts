/** The tokens of y+ in a scored prompt, and how well they line up with the added lines' text. */
export interface AddedLineTokens {
  /** Indices into the echoed tokens. */
  indices: number[];
  /** For each index, the added line (0-based, in the patch's order) its token starts in. */
  lines: number[];
  /** Added lines whose first token starts before the line (a token spanning the previous line's end and the `+`). */
  startsBefore: number;
  /** Selected tokens that run past their added line's end into the next line. */
  runsPast: number;
}

/**
 * y+'s tokens found exactly from the echoed `text_offset`s (docs/definitions.md §5): token i
 * covers [offset_i, offset_{i+1}) of the echoed text; it belongs to y+ when it **starts** inside
 * an added line's range (its `+` marker and text, up to the newline). One rule for a token that
 * straddles a line boundary: it counts for the line it starts in. So a token that starts inside
 * a line and runs on past its end counts (`runsPast`), and a token that starts before a line
 * and runs into its `+` does not (`startsBefore`: that line's first characters are then scored
 * by no token of its own). The newline token, which the test model's tokenizer merges with the
 * next line's indentation, starts outside every range and is never y+. On the 41 real tasks'
 * patches both counts are 0 for every line (benchmarks/fgl-alignment.mjs). `shift` maps prompt
 * offsets to echoed offsets (a BOS text in front); `promptEnd` is where the prompt ends (tokens
 * generated after it are not y+).
 */
export function addedLineTokens(
  offsets: readonly number[],
  added: ReadonlyArray<readonly [number, number]>,
  options: { shift?: number; promptEnd: number },
): AddedLineTokens {
  const shift = options.shift ?? 0;
  const ranges = added.map(([start, end]) => [start + shift, end + shift] as const);
  const indices: number[] = [];
  const lines: number[] = [];
  let startsBefore = 0;
  let runsPast = 0;
  let r = 0;
  const firstSeen = new Set<number>();
  for (let i = 0; i < offsets.length; i++) {
    const start = offsets[i]!;
    if (start >= options.promptEnd + shift) break;
    const end = i + 1 < offsets.length ? offsets[i + 1]! : options.promptEnd + shift;
    while (r < ranges.length && ranges[r]![1] <= start) r += 1;
    if (r >= ranges.length) break;
    const [lineStart, lineEnd] = ranges[r]!;
    if (start >= lineStart && start < lineEnd) {
      indices.push(i);
      lines.push(r);
      if (!firstSeen.has(r)) {
        firstSeen.add(r);
        if (start > lineStart) startsBefore += 1;
      }
      if (end > lineEnd && !(r + 1 < ranges.length && ranges[r + 1]![0] === lineEnd && end <= ranges[r + 1]![1]))
        runsPast += 1;
    }
  }
  startsBefore += ranges.length - firstSeen.size;
  return { indices, lines, startsBefore, runsPast };
}
