import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { FileRead } from "./file-read.js";

/** Bytes read first from a file: a NUL byte among them makes it binary without reading the rest. */
const BINARY_PROBE_BYTES = 8192;

/**
 * Reads one file the way every tool sees it (`FileRead`), synchronously: a cold workspace
 * reads thousands of small files, and one open, fstat, read and close each costs a fraction
 * of the awaited round trips of `fs/promises` (issue 18 measured 0.22 s against 1.7 s for
 * django's 27 MB). Returns undefined when `noFollow` is set and the path is a symbolic link
 * (the caller then resolves it with its confinement check).
 *
 * O_NONBLOCK: opening a FIFO (or a link to one) must not wait for a writer; what is not a
 * regular file is refused right after, from the open descriptor (no check-then-open race).
 * The head is read first: most binary files show a NUL byte there, and are then not read on.
 */
export function readFileClassified(
  path: string,
  absolute: string,
  maxFileBytes: number,
  options: { noFollow?: boolean } = {},
): FileRead | undefined {
  let fd: number;
  try {
    fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (options.noFollow && code === "ELOOP") return undefined;
    return { kind: "missing", path, reason: code ?? "unreadable" };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: "missing", path, reason: "not a regular file" };
    if (stat.size > maxFileBytes) return { kind: "large", path, size: stat.size, absolutePath: absolute };
    const bytes = Buffer.allocUnsafe(stat.size);
    const head = Math.min(stat.size, BINARY_PROBE_BYTES);
    let filled = head === 0 ? 0 : readSync(fd, bytes, 0, head, 0);
    const binaryHead = bytes.subarray(0, filled).indexOf(0) >= 0;
    while (!binaryHead && filled < stat.size) {
      const bytesRead = readSync(fd, bytes, filled, stat.size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (binaryHead || bytes.subarray(0, filled).indexOf(0) >= 0) return { kind: "binary", path, size: stat.size };
    const text = filled === bytes.length ? bytes : Buffer.from(bytes.subarray(0, filled));
    return { kind: "text", path, bytes: text, size: text.length };
  } finally {
    closeSync(fd);
  }
}
