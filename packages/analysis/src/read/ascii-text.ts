import { isAscii } from "node:buffer";

/**
 * Text of at most this many bytes is decoded as Latin-1 when it is ASCII. Under 1,031,913
 * bytes (Node's EXTERN_APEX): from that size Node makes a Latin-1 string external, held
 * outside V8's heap until a collection frees it, which raised the trajectory benchmark's peak
 * memory by 18 MiB (1 MiB line chunks) to 35 MiB (whole files) at the same speed.
 */
export const LATIN1_MAX_BYTES = 1_000_000;

/**
 * UTF-8 bytes as a string. ASCII bytes read as Latin-1 are the same text by a plain copy, where
 * UTF-8 decoding costs about twice as much; trajectories are mostly ASCII (JSON escapes the
 * rest more often than not). Larger text, or any other byte, is decoded as UTF-8.
 */
export function decodeUtf8(bytes: Buffer): string {
  return bytes.length <= LATIN1_MAX_BYTES && isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}
