import { readFile } from "node:fs/promises";
import { decodeUtf8 } from "./utf8.js";

/** A text file that is not valid UTF-8: where (file, 1-based line, byte of the line). */
export class TextEncodingError extends Error {
  override readonly name = "TextEncodingError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly byte: number,
  ) {
    super(
      `${file}:${line}: not valid UTF-8 (at byte ${byte} of the line); loclab reads text files as UTF-8 and never replaces bytes silently`,
    );
  }
}

/**
 * Reads a whole text file as UTF-8, strictly: invalid bytes are a `TextEncodingError` naming the
 * line and byte (a lenient read would turn them into U+FFFD and change names silently: a system
 * name in a CSV, a path in a mapping). A leading byte-order mark is dropped. A file that cannot
 * be read is an error naming it and the system's reason.
 */
export async function readTextFile(file: string): Promise<string> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  const decoded = decodeUtf8(bytes);
  if ("text" in decoded) return decoded.text.replace(/^\uFEFF/, "");
  // (A negative start would make lastIndexOf count from the end.)
  const lineStart = decoded.invalidAt === 0 ? 0 : bytes.lastIndexOf(0x0a, decoded.invalidAt - 1) + 1;
  const line = bytes.subarray(0, lineStart).filter((byte) => byte === 0x0a).length + 1;
  throw new TextEncodingError(file, line, decoded.invalidAt - lineStart);
}
