/**
 * Parses a numeric CLI option, naming the option in the error (`--b: "x" is not a
 * non-negative integer`), so that a typo never becomes NaN inside a computation.
 */
export function numericOption(
  name: string,
  text: string,
  options: { integer?: boolean; min?: number; max?: number; exclusiveMin?: boolean } = {},
): number {
  const value = Number(text);
  const describe = () => {
    const parts = [options.integer ? "an integer" : "a number"];
    if (options.min !== undefined) parts.push(`${options.exclusiveMin ? ">" : ">="} ${options.min}`);
    if (options.max !== undefined) parts.push(`<= ${options.max}`);
    return parts.join(" ");
  };
  // Decimal numbers only: Number() also takes "0x10", "1e3" with spaces, "Infinity", which a typo can produce.
  const bad =
    !/^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ||
    !Number.isFinite(value) ||
    (options.integer && !Number.isInteger(value)) ||
    (options.min !== undefined && (options.exclusiveMin ? value <= options.min : value < options.min)) ||
    (options.max !== undefined && value > options.max);
  if (bad) throw new Error(`--${name}: ${JSON.stringify(text)} is not ${describe()}`);
  return value;
}
