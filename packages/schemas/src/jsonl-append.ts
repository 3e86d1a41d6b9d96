import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/** Per file, the last append in flight: appends to one file run one after another. */
const tails = new Map<string, Promise<void>>();

/**
 * Appends `values` to the JSONL file `path` as one write, after every append to the same path
 * this process started before it: concurrent writers never interleave their lines, and a kill
 * can tear at most the last line (which `repairTornTail` sets aside on the next start). The
 * folder is made if missing.
 */
export function appendJsonl(path: string, ...values: unknown[]): Promise<void> {
  const text = values.map((value) => `${JSON.stringify(value)}\n`).join("");
  const previous = tails.get(path) ?? Promise.resolve();
  const next = previous.then(async () => {
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, text, "utf8");
  });
  const tail = next.catch(() => undefined);
  tails.set(path, tail);
  void tail.then(() => {
    if (tails.get(path) === tail) tails.delete(path);
  });
  return next;
}
