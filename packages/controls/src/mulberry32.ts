/** A seeded source of uniform numbers in [0, 1). */
export type Rng = () => number;

/**
 * Mulberry32, Tommy Ettinger's 32-bit PRNG (public domain, 2017): one 32-bit state word
 * advanced by the Weyl constant 0x6D2B79F5 and mixed by two multiply-xorshift rounds.
 * Period 2^32; passes gjrand and PractRand to 2^32 bytes — plenty for shuffling and pairing,
 * not for cryptography. Controls take their randomness from it so that a run is reproduced
 * from its seed (style.md: no `Math.random`).
 *
 * The seed is any safe integer, taken modulo 2^32. Cost: O(1) per draw.
 *
 * @example const rng = mulberry32(42); rng() // 0.6011037519201636
 */
export function mulberry32(seed: number): Rng {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`mulberry32 requires an integer seed, got ${seed}`);
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A uniform integer in [0, n), by scaling a draw (bias below 2^-32 · n, negligible for the
 * sizes controls use).
 */
export function randomIndex(rng: Rng, n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`randomIndex requires a positive integer bound, got ${n}`);
  return Math.floor(rng() * n);
}
