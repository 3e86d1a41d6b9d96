/**
 * Lines repeated this many times in a row mark a looping output: the agent answers such an
 * output with a nudge (recovery `repeated_line`) and the failure breakdown counts it as a loop
 * candidate. One constant, so the two cannot disagree on what a loop is.
 */
export const REPEATED_LINE_THRESHOLD = 5;

/** How often the most repeated line of a text repeats. */
export interface LineRepeats {
  /** The most times one non-blank line occurs in a row. */
  longestRun: number;
  /** The most times one non-blank line occurs anywhere. */
  mostRepeats: number;
  /** The first line (trimmed) whose run in a row reaches `threshold`, if any. */
  firstRepeated?: string;
}

/**
 * Line repetition in one model output, the "same output line repeated" loop signal
 * (docs/definitions.md §1, §8), part of the trajectory contract: the agent reads it from the
 * output it just got, the analysis from the output the log kept. Lines are compared after
 * trimming surrounding whitespace (a `\r` included); blank lines are skipped and do not break
 * a run (a degenerate output often alternates a line with blank lines).
 *
 * Cost: O(length of text).
 *
 * @example lineRepeats("a\na\n\na\nb\na") // { longestRun: 3, mostRepeats: 4 }
 */
export function lineRepeats(text: string, options: { threshold?: number } = {}): LineRepeats {
  const threshold = options.threshold ?? REPEATED_LINE_THRESHOLD;
  let firstRepeated: string | undefined;
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
    if (run === threshold && firstRepeated === undefined) firstRepeated = line;
    const count = (counts.get(line) ?? 0) + 1;
    counts.set(line, count);
    if (count > mostRepeats) mostRepeats = count;
  }
  return firstRepeated === undefined ? { longestRun, mostRepeats } : { longestRun, mostRepeats, firstRepeated };
}
