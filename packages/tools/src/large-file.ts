import { open } from "node:fs/promises";

/** Bytes read per step when a file is streamed. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * A file too large to read whole, read in chunks that each end at a line break (the last may
 * end at the end of the file). `firstLine` is the 1-based line the chunk starts with. The
 * callback returns `false` to stop early. Returns `"binary"` as soon as a NUL byte is seen
 * (nothing after it is read), `"stopped"` when the callback stopped it, `"done"` otherwise.
 * Only one chunk, plus one partial line, is held at a time (a single line longer than the
 * chunk is held whole: at worst the file).
 */
export async function streamLineChunks(
  absolutePath: string,
  onChunk: (chunk: Buffer, firstLine: number) => boolean | void,
): Promise<"binary" | "stopped" | "done"> {
  const handle = await open(absolutePath, "r");
  try {
    let carry: Buffer = Buffer.alloc(0);
    let nextLine = 1;
    for (;;) {
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      const fresh = buffer.subarray(0, bytesRead);
      if (fresh.indexOf(0) >= 0) return "binary";
      const data = carry.length > 0 ? Buffer.concat([carry, fresh]) : fresh;
      if (bytesRead === 0) {
        if (data.length > 0 && onChunk(data, nextLine) === false) return "stopped";
        return "done";
      }
      const lastBreak = data.lastIndexOf(0x0a);
      if (lastBreak < 0) {
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
