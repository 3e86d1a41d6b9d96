import { closeSync, openSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

/** Bytes read at a time. */
const CHUNK_BYTES = 1024 * 1024;

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
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let carry = "";
    let number = 0;
    for (;;) {
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      const text = carry + (bytesRead === 0 ? decoder.end() : decoder.write(chunk.subarray(0, bytesRead)));
      let from = 0;
      for (;;) {
        const lf = text.indexOf("\n", from);
        const cr = text.indexOf("\r", from);
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
