const SPLITTER = 134217729; // 2^27 + 1

/** Veltkamp's split of a double into two halves of 26 bits each: a = hi + lo exactly. */
function split(a: number): { hi: number; lo: number } {
  const c = SPLITTER * a;
  const hi = c - (c - a);
  return { hi, lo: a - hi };
}

/**
 * Dekker's exact product: a·b = hi + lo with hi = fl(a·b), lo the rounding error (exact
 * unless the product under- or overflows). Used to carry n·p and n·q to ~32 digits so that
 * the saddle-point binomial does not inherit the rounding of n·p (≈ 1e-16·np absolute, which
 * moves ln P(X = k) by about |k − np|/np of that).
 *
 * Reference: T. J. Dekker (1971), "A floating-point technique for extending the available
 * precision", Numer. Math. 18:224–242. Cost: O(1), no allocation beyond the result.
 */
export function twoProduct(a: number, b: number): { hi: number; lo: number } {
  const hi = a * b;
  const as = split(a);
  const bs = split(b);
  const lo = as.hi * bs.hi - hi + as.hi * bs.lo + as.lo * bs.hi + as.lo * bs.lo;
  return { hi, lo };
}
