import { open, readFile, stat, truncate, writeFile } from "node:fs/promises";

/** What `repairTornTail` found at the end of a JSONL file. */
export interface TornTail {
  /** The 1-based line the torn text started on. */
  line: number;
  bytes: number;
  /** Where the torn text was saved. */
  savedTo: string;
}

/**
 * Makes a JSONL file safe to append to after a crash: when its last line has no line break
 * (a write cut off by a kill), that fragment would be glued to the next record. A fragment
 * that is valid JSON only lacks its line break, which is added; anything else is cut off and
 * saved to `<file>.torn-<time>` (nothing is lost), and reported so the caller can say so.
 * A missing or empty file needs nothing.
 */
export async function repairTornTail(file: string, now: () => Date = () => new Date()): Promise<TornTail | undefined> {
  const info = await stat(file).catch(() => undefined);
  if (!info || info.size === 0) return undefined;
  const handle = await open(file, "r");
  try {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, info.size - 1);
    if (last[0] === 0x0a) return undefined;
  } finally {
    await handle.close();
  }
  const text = await readFile(file);
  const cut = text.lastIndexOf(0x0a) + 1;
  const fragment = text.subarray(cut);
  try {
    JSON.parse(fragment.toString("utf8"));
    await writeFile(file, "\n", { flag: "a" });
    return undefined;
  } catch {
    // torn: set it aside below
  }
  const savedTo = `${file}.torn-${now().toISOString().replace(/[:.]/g, "-")}`;
  await writeFile(savedTo, fragment, { flag: "wx" });
  await truncate(file, cut);
  const line = text.subarray(0, cut).toString("utf8").split("\n").length;
  return { line, bytes: fragment.length, savedTo };
}
