/**
 * One-line progress messages on stderr, so that stdout stays clean for `--json` output
 * that other programs read. Quiet when `LOCLAB_QUIET=1`.
 */
export function progress(message: string): void {
  if (process.env.LOCLAB_QUIET === "1") return;
  process.stderr.write(`loclab: ${message}\n`);
}
