/**
 * Trigram signatures: per file, a bit set of the hashed trigrams of its bytes with A–Z
 * lower-cased (`SIGNATURE_BITS` bits, one hash). A needle of three bytes or more can occur in a
 * file only if every trigram of the needle (lower-cased the same way) has its bit set, so the
 * signatures rule out most files of a search before a byte of them is read: a Bloom filter of
 * trigrams, as code search engines index text, small enough (1 KiB per file) to keep in the
 * content pack. Lower-casing only A–Z is a byte-wise map, so the test holds for case-sensitive
 * needles of any bytes, and for case-insensitive ASCII needles in files whose full lower-casing
 * agrees with it (see case-folding.ts).
 */
export const SIGNATURE_BITS = 8192;
export const SIGNATURE_BYTES = SIGNATURE_BITS / 8;
const MASK = SIGNATURE_BITS - 1;

const lower = (byte: number) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);

/** The bit of a trigram (three bytes already lower-cased). */
function trigramBit(a: number, b: number, c: number): number {
  // Multiplicative hashing of the 24-bit trigram (Knuth), top bits kept.
  return (Math.imul((a << 16) | (b << 8) | c, 0x9e3779b1) >>> 19) & MASK;
}

/** Writes the signature of `bytes` into `into` (SIGNATURE_BYTES long, zeroed by the caller). */
export function fillSignature(bytes: Uint8Array, into: Uint8Array): void {
  if (bytes.length < 3) return;
  let a = lower(bytes[0] as number);
  let b = lower(bytes[1] as number);
  for (let i = 2; i < bytes.length; i += 1) {
    const c = lower(bytes[i] as number);
    const bit = trigramBit(a, b, c);
    into[bit >>> 3] = (into[bit >>> 3] as number) | (1 << (bit & 7));
    a = b;
    b = c;
  }
}

/** The bits a needle's trigrams set (undefined for a needle under three bytes: signatures cannot judge it). */
export function needleBits(needle: Uint8Array): Uint32Array | undefined {
  if (needle.length < 3) return undefined;
  const bits = new Set<number>();
  for (let i = 2; i < needle.length; i += 1)
    bits.add(trigramBit(lower(needle[i - 2] as number), lower(needle[i - 1] as number), lower(needle[i] as number)));
  return Uint32Array.from(bits);
}

/** Whether the signature at `offset` of `signatures` has every bit of `bits`. */
export function signatureHas(signatures: Uint8Array, offset: number, bits: Uint32Array): boolean {
  for (let i = 0; i < bits.length; i += 1) {
    const bit = bits[i] as number;
    if (((signatures[offset + (bit >>> 3)] as number) & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}
