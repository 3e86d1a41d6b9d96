import { availableParallelism } from "node:os";

/** Refuses a number of threads that is not a whole number ≥ 1, naming the option. */
export function checkThreadCount(threads: number, option = "threads"): void {
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`${option}: ${threads} is not a whole number ≥ 1`);
}

/** Threads to use when not told: the machine's cores, at most `max`. */
export function defaultThreadCount(max: number): number {
  return Math.max(1, Math.min(max, availableParallelism()));
}
