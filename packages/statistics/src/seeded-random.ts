/** A seeded source of uniform random numbers. */
export interface SeededRandom {
  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number;
  /** A uniform number in [0, 1) with 53 random bits. */
  nextFloat(): number;
  /** A uniform integer in [0, bound), without modulo bias; bound a positive integer ≤ 2^32. */
  nextBelow(bound: number): number;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * xoshiro128** (Blackman & Vigna 2018), a small fast generator with 128 bits of state and
 * period 2^128 − 1, its state filled by a SplitMix-style 32-bit mixer (golden-ratio increment,
 * MurmurHash3 finalizer) run from the seed, so that nearby seeds give
 * unrelated streams. The same seed always gives the same stream, on every platform: the
 * package's randomness comes in only through this function (house habit: no Math.random).
 *
 * nextBelow(bound) draws 32-bit values and rejects the top 2^32 mod bound of them, so every
 * integer below bound is equally likely (a plain floor(u·bound) is biased by up to bound/2^32).
 *
 * Reference: D. Blackman & S. Vigna, "Scrambled linear pseudorandom number generators",
 * ACM TOMS 47 (2021); https://prng.di.unimi.it/xoshiro128starstar.c.
 * Errors: seed must be a safe integer (negative seeds are fine).
 * Cost: O(1) per draw.
 *
 * @example const random = seededRandom(42); random.nextBelow(300) // the same integer every run
 */
export function seededRandom(seed: number): SeededRandom {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seededRandom requires seed to be a safe integer, got ${seed}`);
  // SplitMix32 over the low and high 32-bit halves of the seed fills the four state words.
  let s = (seed >>> 0) ^ Math.imul(Math.floor(seed / 4294967296) >>> 0, 0x9e3779b9);
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  if ((a | b | c | d) === 0) a = 1;
  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(b, 5), 7), 9) >>> 0;
    const t = b << 9;
    c ^= a;
    d ^= b;
    b ^= c;
    a ^= d;
    c ^= t;
    d = rotl(d, 11);
    return result;
  };
  return {
    nextUint32,
    nextFloat: () => ((nextUint32() >>> 5) * 67108864 + (nextUint32() >>> 6)) / 9007199254740992,
    nextBelow(bound: number): number {
      if (!Number.isInteger(bound) || bound < 1 || bound > 4294967296) {
        throw new RangeError(`nextBelow requires bound to be an integer in [1, 2^32], got ${bound}`);
      }
      const limit = 4294967296 - (4294967296 % bound);
      let x = nextUint32();
      while (x >= limit) x = nextUint32();
      return x % bound;
    },
  };
}
