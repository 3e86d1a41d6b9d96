import { type ContentPack, packData, textFileAt } from "./content-pack.js";

// Case-insensitive search over a content pack (see Workspace.packFilter): the pack is
// lower-cased once with a same-length ASCII transform, which finds an ASCII needle exactly
// where String.prototype.toLowerCase would, in every file without the two exceptions below.

/**
 * A copy with the bytes A–Z lower-cased and every other byte kept (same length, same
 * offsets), four bytes at a time: a byte is upper-case ASCII when its top bit is clear and
 * its low seven bits lie in 0x41–0x5A, found for all four lanes of a 32-bit word at once by
 * carry-free additions (each lane's low seven bits plus at most 0x3F cannot carry into the next).
 */
export function asciiLowerCase(bytes: Buffer): Buffer {
  const lower = Buffer.alloc(bytes.length);
  bytes.copy(lower);
  const words = Math.floor(bytes.length / 4);
  // Buffer.alloc of this size owns its ArrayBuffer from offset 0 unless pooled (small sizes only).
  const aligned = lower.byteOffset % 4 === 0;
  if (aligned) {
    const view = new Uint32Array(lower.buffer, lower.byteOffset, words);
    for (let i = 0; i < words; i += 1) {
      const word = view[i] as number;
      const low = word & 0x7f7f7f7f;
      // Lane >= 0x41: low + 0x3F sets bit 7; lane > 0x5A: low + 0x25 sets bit 7.
      const upper = (low + 0x3f3f3f3f) & ~(low + 0x25252525) & ~word & 0x80808080;
      view[i] = word | (upper >>> 2);
    }
  }
  for (let i = aligned ? 4 * words : 0; i < lower.length; i += 1) {
    const byte = lower[i] as number;
    if (byte >= 0x41 && byte <= 0x5a) lower[i] = byte + 0x20;
  }
  return lower;
}

/**
 * 1 for each packed text file where an ASCII needle matches the A–Z-lower-cased bytes exactly
 * when it matches the fully lower-cased text (`String.prototype.toLowerCase`). Every other
 * character's lower case is itself non-ASCII, so it can neither make nor break a run of ASCII
 * characters, except U+0130 (→ "i̇") and U+212A KELVIN SIGN (→ "k"): files holding either
 * are left to the per-file search (a test checks this over every code point).
 */
export function filesLowerCasedExactly(pack: ContentPack): Uint8Array {
  const exact = new Uint8Array(pack.textStarts.length).fill(1);
  for (const special of ASCII_LOWERING_CHARACTERS) {
    const bytes = Buffer.from(special, "utf8");
    const data = packData(pack);
    for (let at = data.indexOf(bytes); at >= 0; at = data.indexOf(bytes, at + 1)) {
      exact[textFileAt(pack, at)] = 0;
    }
  }
  return exact;
}

/** The characters outside ASCII whose `toLowerCase()` holds an ASCII character. */
export const ASCII_LOWERING_CHARACTERS: readonly string[] = ["\u0130", "\u212a"];
