/** How often the most repeated line of a text repeats. */
export interface LineRepeats {
  /** The most times one non-blank line occurs in a row. */
  longestRun: number;
  /** The most times one non-blank line occurs anywhere. */
  mostRepeats: number;
}

/**
 * Line repetition in one model output, the "same output line repeated" loop signal (domain.md
 * §1, §8). Lines are compared after trimming surrounding whitespace; blank lines are skipped
 * and do not break a run (a degenerate output often alternates a line with blank lines).
 *
 * Cost: O(length of text).
 *
 * @example lineRepeats("a\na\n\na\nb\na") // { longestRun: 3, mostRepeats: 4 }
 */
export function lineRepeats(text: string): LineRepeats {
  const counts = new Map<string, number>();
  let longestRun = 0;
  let mostRepeats = 0;
  let previous: string | undefined;
  let run = 0;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === "") continue;
    run = line === previous ? run + 1 : 1;
    previous = line;
    if (run > longestRun) longestRun = run;
    const count = (counts.get(line) ?? 0) + 1;
    counts.set(line, count);
    if (count > mostRepeats) mostRepeats = count;
  }
  return { longestRun, mostRepeats };
}
