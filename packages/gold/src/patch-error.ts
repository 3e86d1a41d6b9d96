/**
 * A patch that is not a unified diff loclab can read. The message names the instance, the
 * 1-based line of the patch and the text found there, so that a bad row of a 500-row
 * benchmark file can be found and fixed without re-running anything.
 */
export class PatchParseError extends Error {
  override readonly name = "PatchParseError";
  constructor(
    readonly instanceId: string,
    readonly patchLine: number,
    readonly lineText: string,
    readonly reason: string,
  ) {
    super(`${instanceId}: patch line ${patchLine}: ${reason}: ${JSON.stringify(clip(lineText))}`);
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
