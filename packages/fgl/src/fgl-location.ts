import type { Location, LocationRole } from "@loclab/schemas";

/**
 * One location of a candidate localization (docs/definitions.md §5): a repository path, a
 * 1-based inclusive line range in the pre-image, optionally the symbol it covers, and its role
 * (`edit`: the fix changes it; `read`: context the fixer needs). The same shape as a
 * prediction's location, so a localizer's output is a candidate as it stands.
 */
export type FglLocation = Location;
export type { LocationRole };

/** The identity of a location for de-duplication: path and line range (role and symbol aside). */
export function locationKey(location: Pick<FglLocation, "path" | "startLine" | "endLine">): string {
  return `${location.path}:${location.startLine}-${location.endLine}`;
}

/**
 * Merges overlapping or touching ranges of the same file into one (an `edit` role wins over
 * `read`: a window that contains edited lines is edited code), keeping the order in which each
 * file first appears and, within a file, line order. Symbols of merged ranges are joined with ", ".
 */
export function mergeLocations(locations: readonly FglLocation[]): FglLocation[] {
  const byPath = new Map<string, FglLocation[]>();
  for (const location of locations) {
    const list = byPath.get(location.path) ?? [];
    list.push(location);
    byPath.set(location.path, list);
  }
  const merged: FglLocation[] = [];
  for (const [path, list] of byPath) {
    const sorted = [...list].sort((a, b) => a.startLine - b.startLine || a.endLine - b.endLine);
    let current: FglLocation | undefined;
    for (const next of sorted) {
      if (current && next.startLine <= current.endLine + 1) {
        const symbols = [current.symbol, next.symbol].filter((s): s is string => s !== undefined);
        const symbol = [...new Set(symbols.flatMap((s) => s.split(", ")))].join(", ");
        current = {
          path,
          startLine: current.startLine,
          endLine: Math.max(current.endLine, next.endLine),
          role: current.role === "edit" || next.role === "edit" ? "edit" : "read",
          ...(symbol !== "" ? { symbol } : {}),
        };
        continue;
      }
      if (current) merged.push(current);
      current = { ...next };
    }
    if (current) merged.push(current);
  }
  return merged;
}

/** A canonical key of a candidate's set of path × line ranges, order-free (roles aside). */
export function locationSetKey(locations: readonly FglLocation[]): string {
  return [...new Set(mergeLocations(locations).map(locationKey))].sort().join("|");
}
