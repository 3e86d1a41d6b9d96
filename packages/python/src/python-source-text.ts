/** How a Python file's bytes were read, so that they can be written back the same way. */
export type PythonSourceEncoding = "utf8" | "latin1";

export interface DecodedPythonSource {
  text: string;
  encoding: PythonSourceEncoding;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A Python file's text for parsing and rewriting, such that `encodePythonSource` gives back
 * the same bytes wherever nothing was edited:
 * - valid UTF-8 (Python 3's default; a byte-order mark is kept in the text) is read as UTF-8;
 * - anything else (a `# -*- coding: latin-1 -*-` file, cp1252, …) is read byte for byte as
 *   Latin-1. Imports are ASCII in every encoding Python accepts for source besides UTF-16, so
 *   their offsets and the rewritten names are right, and the other bytes pass through as they
 *   are;
 * - a file holding a NUL byte (UTF-16, or not text) gives `undefined`: it is copied unchanged.
 */
export function decodePythonSource(bytes: Uint8Array): DecodedPythonSource | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return { text: UTF8.decode(bytes), encoding: "utf8" };
  } catch {
    return { text: Buffer.from(bytes).toString("latin1"), encoding: "latin1" };
  }
}

/** The bytes of a text read by `decodePythonSource`. */
export function encodePythonSource(text: string, encoding: PythonSourceEncoding): Buffer {
  return Buffer.from(text, encoding);
}
