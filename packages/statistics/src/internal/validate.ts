// Argument checks shared by the package's functions. Every message names the function and the
// argument, and shows the value received, in one pattern:
//   "exactMcNemar requires b to be a non-negative integer, got -1".

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  return String(value);
}

/** Throws a RangeError unless `value` is a safe integer ≥ 0. */
export function requireNonNegativeInteger(fn: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${fn} requires ${name} to be a non-negative integer, got ${show(value)}`);
  }
  return value;
}

/** Throws a RangeError unless `value` is a safe integer ≥ 1. */
export function requirePositiveInteger(fn: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${fn} requires ${name} to be a positive integer, got ${show(value)}`);
  }
  return value;
}

/** Throws a RangeError unless `value` is a finite number strictly between 0 and 1. */
export function requireOpenUnit(fn: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !(value > 0 && value < 1)) {
    throw new RangeError(`${fn} requires ${name} to be a number strictly between 0 and 1, got ${show(value)}`);
  }
  return value;
}

/** Throws a RangeError unless `value` is a number in [0, 1]. */
export function requireUnit(fn: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new RangeError(`${fn} requires ${name} to be a number in [0, 1], got ${show(value)}`);
  }
  return value;
}

/** Throws a RangeError unless `value` is a finite number > 0. */
export function requirePositiveFinite(fn: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${fn} requires ${name} to be a finite number greater than 0, got ${show(value)}`);
  }
  return value;
}
