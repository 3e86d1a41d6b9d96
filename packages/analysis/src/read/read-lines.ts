import { isAscii } from "node:buffer";
import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { LATIN1_MAX_BYTES } from "./ascii-text.js";

/** Bytes read at a time: as large as a chunk may be and still be decoded as Latin-1 (ascii-text.ts). */
export const LINE_CHUNK_BYTES = LATIN1_MAX_BYTES;

/**
 * Calls `line` with each line of a UTF-8 text file and its 1-based number, reading it a chunk
 * at a time (memory stays at a chunk and a line, whatever the file's size). Lines end at
 * `\n`, `\r\n` or a lone `\r`, as Node's readline splits them; the last line need not end
 * with a break. Synchronous: for a JSONL trajectory, awaiting readline's async iterator cost
 * more than parsing the lines.
 */
export function forEachLineSync(file: string, line: (text: string, number: number) => void): void {
  const fd = openSync(file, "r");
  try {
    const decoder = new StringDecoder("utf8");
    const chunk = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
    let carry = "";
    let number = 0;
    // ASCII chunks as Latin-1 (decodeUtf8's reason). Until a chunk holds other bytes, the
    // decoder (which keeps a character cut at a chunk's end for the next) has nothing pending;
    // from then on it decodes every chunk.
    let decoding = false;
    for (;;) {
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      const bytes = chunk.subarray(0, bytesRead);
      if (!decoding && !isAscii(bytes)) decoding = true;
      const decoded =
        bytesRead === 0 ? (decoding ? decoder.end() : "") : decoding ? decoder.write(bytes) : bytes.toString("latin1");
      const text = carry + decoded;
      let from = 0;
      // The next \n and \r at or after `from`, each searched again only once passed: a file
      // with no \r (or no \n) at all would otherwise be scanned to the chunk's end per line.
      let lf = text.indexOf("\n");
      let cr = text.indexOf("\r");
      for (;;) {
        if (lf >= 0 && lf < from) lf = text.indexOf("\n", from);
        if (cr >= 0 && cr < from) cr = text.indexOf("\r", from);
        const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
        if (end < 0) break;
        let next = end + 1;
        if (text.charCodeAt(end) === 0x0d) {
          // A \r at the end of the text may be the first half of \r\n: wait for more.
          if (end === text.length - 1 && bytesRead !== 0) break;
          if (text.charCodeAt(end + 1) === 0x0a) next = end + 2;
        }
        number += 1;
        line(text.slice(from, end), number);
        from = next;
      }
      carry = text.slice(from);
      if (bytesRead === 0) break;
    }
    if (carry !== "") line(carry, number + 1);
  } finally {
    closeSync(fd);
  }
}
