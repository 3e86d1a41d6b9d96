import { requireOpenUnit } from "./validate.js";

/** α = 1 − confidence, checked: the one place both interval functions compute it. */
export function alphaOf(fn: string, confidence: unknown): number {
  const level = requireOpenUnit(fn, "confidence", confidence);
  return 1 - level;
}
