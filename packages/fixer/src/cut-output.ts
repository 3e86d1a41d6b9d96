/** A command's stream as run_command returns it: the first `maxChars` characters, and how many were cut. */
export interface CutOutput {
  text: string;
  /** Characters left out (0 when the stream fit). */
  omitted: number;
}

/**
 * run_command's cap on each of stdout and stderr (FGL: 5,000 characters each): the head is
 * kept, as FGL's harness keeps it, and the cut is said in the text so that the model knows the
 * output went on.
 */
export function cutOutput(text: string, maxChars: number): CutOutput {
  if (text.length <= maxChars) return { text, omitted: 0 };
  const omitted = text.length - maxChars;
  return { text: `${text.slice(0, maxChars)}\n[… ${omitted} more characters cut]`, omitted };
}
