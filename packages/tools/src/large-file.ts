import { open } from "node:fs/promises";

/** Bytes read per step when a file is streamed. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A file too large to read whole, read in chunks that each end at a line break (the last may
 * end at the end of the file). `firstLine` is the 1-based line the chunk starts with. The
 * callback returns `false` to stop early. Returns `"binary"` as soon as a NUL byte is seen
 * (nothing after it is read), `"stopped"` when the callback stopped it, `"done"` otherwise.
 * Only one chunk, plus one partial line, is held at a time. A single line longer than the
 * chunk is held whole (at worst the file), unless `maxLineBytes` is given: then a longer line
 * is handed over cut to its first `maxLineBytes` bytes (ended with a line break, counted as one
 * line) and the rest of it is read past, not held — a viewer that shows 10,000 characters needs
 * no 50 MB line.
 */
export async function streamLineChunks(
  absolutePath: string,
  onChunk: (chunk: Buffer, firstLine: number) => boolean | void,
  options: { maxLineBytes?: number } = {},
): Promise<"binary" | "stopped" | "done"> {
  const maxLineBytes = options.maxLineBytes ?? Number.POSITIVE_INFINITY;
  const handle = await open(absolutePath, "r");
  try {
    let carry: Buffer = Buffer.alloc(0);
    let nextLine = 1;
    // Inside the rest of a line already handed over cut: read past it to its line break.
    let skipping = false;
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      let fresh = buffer.subarray(0, bytesRead);
      if (fresh.indexOf(0) >= 0) return "binary";
      if (skipping) {
        const lineBreak = fresh.indexOf(0x0a);
        if (lineBreak < 0) {
          if (bytesRead === 0) return "done";
          continue;
        }
        skipping = false;
        fresh = fresh.subarray(lineBreak + 1);
      }
      const data = carry.length > 0 ? Buffer.concat([carry, fresh]) : fresh;
      if (bytesRead === 0) {
        if (data.length > 0 && onChunk(data, nextLine) === false) return "stopped";
        return "done";
      }
      const lastBreak = data.lastIndexOf(0x0a);
      if (lastBreak < 0) {
        if (data.length > maxLineBytes) {
          // One line longer than the cap: hand over its head as a line of its own, read past the rest.
          if (onChunk(Buffer.concat([data.subarray(0, maxLineBytes), Buffer.from("\n")]), nextLine) === false)
            return "stopped";
          nextLine += 1;
          carry = Buffer.alloc(0);
          skipping = true;
          continue;
        }
        carry = Buffer.from(data);
        continue;
      }
      const complete = data.subarray(0, lastBreak + 1);
      carry = Buffer.from(data.subarray(lastBreak + 1));
      if (onChunk(complete, nextLine) === false) return "stopped";
      nextLine += countNewlines(complete);
    }
  } finally {
    await handle.close();
  }
}

/** How many `\n` bytes `bytes` holds. */
export function countNewlines(bytes: Buffer): number {
  let count = 0;
  let at = bytes.indexOf(0x0a);
  while (at >= 0) {
    count += 1;
    at = bytes.indexOf(0x0a, at + 1);
  }
  return count;
}
