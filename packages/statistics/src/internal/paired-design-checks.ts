import { requireOpenUnit, requirePositiveFinite } from "./validate.js";

/** Checks ψ (discordant rate) in (0, 1]. */
export function checkPsi(fn: string, psi: unknown): number {
  if (typeof psi !== "number" || !(psi > 0 && psi <= 1)) {
    throw new RangeError(`${fn} requires psi (the discordant-pair rate) to be in (0, 1], got ${String(psi)}`);
  }
  return psi;
}

/** Checks 0 < δ ≤ ψ (|p10 − p01| cannot exceed p10 + p01). */
export function checkDelta(fn: string, delta: unknown, psi: number): number {
  if (typeof delta !== "number" || !(delta > 0 && delta <= psi)) {
    throw new RangeError(`${fn} requires delta to satisfy 0 < delta ≤ psi = ${psi}, got ${String(delta)}`);
  }
  return delta;
}

export function checkAlpha(fn: string, alpha: unknown): number {
  return requireOpenUnit(fn, "alpha", alpha);
}

export function checkPower(fn: string, power: unknown): number {
  return requireOpenUnit(fn, "power", power);
}

export function checkN(fn: string, n: unknown): number {
  return requirePositiveFinite(fn, "n", n);
}
