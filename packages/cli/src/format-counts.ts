/** Counts as one line, largest first: `evaluated 3, infra_error 1`. */
export function formatCounts(counts: Readonly<Record<string, number>>): string {
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
}
