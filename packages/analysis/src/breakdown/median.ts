/**
 * The median of a list of numbers: the middle value, or the mean of the two middle values of an
 * even-length list; null for an empty list. Cost O(n log n).
 *
 * @example median([3, 1, 4, 1]) // 2
 */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
