/** A command's stream as run_command returns it: the first `maxChars` characters, and how much was cut. */
export interface CutOutput {
  text: string;
  /** Characters of the kept bytes left out (0 when the stream fit). */
  omitted: number;
  /** Bytes the sandbox never kept (counted as they came, then dropped). */
  droppedBytes: number;
}

/**
 * run_command's cap on each of stdout and stderr (FGL: 5,000 characters each): the head is
 * kept, as FGL's harness keeps it, and the cut is said in the text so that the model knows the
 * output went on. `droppedBytes` are the bytes the sandbox counted past its own cap and never
 * held (a flood): the note gives them too, so the model learns how much it printed.
 */
export function cutOutput(text: string, maxChars: number, droppedBytes = 0): CutOutput {
  if (text.length <= maxChars && droppedBytes === 0) return { text, omitted: 0, droppedBytes: 0 };
  const omitted = Math.max(0, text.length - maxChars);
  const parts = [];
  if (omitted > 0) parts.push(`${omitted} more characters cut`);
  if (droppedBytes > 0) parts.push(`${droppedBytes.toLocaleString("en-US")} more bytes not kept`);
  return { text: `${text.slice(0, maxChars)}\n[… ${parts.join("; ")}]`, omitted, droppedBytes };
}
