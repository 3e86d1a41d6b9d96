const STRICT = new TextDecoder("utf-8", { fatal: true });
const LENIENT = new TextDecoder("utf-8");

/**
 * Bytes as UTF-8 text, strictly: `{ text }`, or `{ invalidAt }`, the offset of the first byte
 * where decoding fails (found as the first U+FFFD of a lenient decoding that is not a literal
 * U+FFFD, EF BF BD, in the bytes: the text before it decodes the same either way, so its UTF-8
 * length is the offset). Never replaces bytes silently. Shared by the JSONL reader and
 * `readTextFile`.
 */
export function decodeUtf8(bytes: Uint8Array): { text: string } | { invalidAt: number } {
  try {
    return { text: STRICT.decode(bytes) };
  } catch {
    const lenient = LENIENT.decode(bytes);
    for (let at = lenient.indexOf("\uFFFD"); at !== -1; at = lenient.indexOf("\uFFFD", at + 1)) {
      const offset = Buffer.byteLength(lenient.slice(0, at), "utf8");
      if (!(bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd))
        return { invalidAt: offset };
    }
    return { invalidAt: bytes.length };
  }
}
