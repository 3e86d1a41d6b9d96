/** `value.toFixed(digits)`, or `n/a` for a value that is not a finite number (a metric over no instance). */
export function fixed(value: number | null | undefined, digits: number): string {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "n/a";
}
