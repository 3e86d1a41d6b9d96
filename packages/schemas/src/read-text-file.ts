import { readFile } from "node:fs/promises";

/** A text file that is not valid UTF-8: where (file, 1-based line, byte of the line). */
export class TextEncodingError extends Error {
  override readonly name = "TextEncodingError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly byte: number,
  ) {
    super(`${file}:${line}: not valid UTF-8 (at byte ${byte} of the line); loclab reads text files as UTF-8 and never replaces bytes silently`);
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

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
  try {
    return UTF8.decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    const lenient = new TextDecoder("utf-8").decode(bytes);
    for (let at = lenient.indexOf("\uFFFD"); at !== -1; at = lenient.indexOf("\uFFFD", at + 1)) {
      const offset = Buffer.byteLength(lenient.slice(0, at), "utf8");
      if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) continue;
      const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1;
      const line = lenient.slice(0, at).split("\n").length;
      throw new TextEncodingError(file, line, offset - lineStart);
    }
    throw new TextEncodingError(file, 1, 0);
  }
}
