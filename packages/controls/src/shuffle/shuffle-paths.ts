import { normalizeRepoPath } from "../known-files/known-files.js";
import type { ShuffleMapping } from "./shuffle-mapping.js";

/** Which way a path goes through a mapping: original → shuffled, or back. */
export type ShuffleDirection = "map" | "unmap";

/** Lookup tables of one mapping in one direction. */
export interface ShuffleLookup {
  files: ReadonlyMap<string, string>;
  directories: ReadonlyMap<string, string>;
}

const lookups = new WeakMap<ShuffleMapping, Record<ShuffleDirection, ShuffleLookup>>();

/**
 * The mapping's records as maps, original → shuffled (`map`) or shuffled → original
 * (`unmap`); built once per mapping object and cached. Maps rather than the records, so that
 * a file named `constructor` or `__proto__` is looked up as a name, not as a property.
 */
export function shuffleLookup(mapping: ShuffleMapping, direction: ShuffleDirection): ShuffleLookup {
  let cached = lookups.get(mapping);
  if (!cached) {
    const files = Object.entries(mapping.files);
    const directories = Object.entries(mapping.directories);
    cached = {
      map: { files: new Map(files), directories: new Map(directories) },
      unmap: {
        files: new Map(files.map(([original, shuffled]) => [shuffled, original])),
        directories: new Map(directories.map(([original, shuffled]) => [shuffled, original])),
      },
    };
    lookups.set(mapping, cached);
  }
  return cached[direction];
}

/**
 * The shuffled path of an original file or directory (repository-relative; `./` and `\`
 * are normalized away), or `undefined` when the mapping does not know the path. Exact only:
 * a path the checkout does not have is not guessed from its folders (see `mapPathByFolders`).
 *
 * @example mapPath(mapping, "django/db/models/query.py") // "d_k3x9q2/d_0hq7re/d_p1m4xa/m_p8w1z0.py"
 */
export function mapPath(mapping: ShuffleMapping, path: string): string | undefined {
  return lookUp(shuffleLookup(mapping, "map"), path);
}

/**
 * The original path of a shuffled file or directory, or `undefined` when the shuffled tree
 * has no such path. `unmapPath(m, mapPath(m, p)) === p` for every path of the mapping.
 */
export function unmapPath(mapping: ShuffleMapping, path: string): string | undefined {
  return lookUp(shuffleLookup(mapping, "unmap"), path);
}

/**
 * A path mapped by its longest known folder, the rest kept as written: for paths the
 * checkout does not hold, such as a file a gold patch creates
 * (`django/db/models/new.py` → `d_k3x9q2/d_0hq7re/d_p1m4xa/new.py`). A known path maps
 * exactly. Round-trips as long as the kept rest is not itself a shuffled name.
 */
export function mapPathByFolders(mapping: ShuffleMapping, path: string, direction: ShuffleDirection): string {
  const lookup = shuffleLookup(mapping, direction);
  const normalized = normalizeRepoPath(path);
  const exact = lookUp(lookup, normalized);
  if (exact !== undefined) return exact;
  const segments = normalized.split("/");
  for (let cut = segments.length - 1; cut >= 1; cut -= 1) {
    const folder = lookup.directories.get(segments.slice(0, cut).join("/"));
    if (folder !== undefined) return [folder, ...segments.slice(cut)].join("/");
  }
  return normalized;
}

function lookUp(lookup: ShuffleLookup, path: string): string | undefined {
  const normalized = normalizeRepoPath(path);
  return lookup.files.get(normalized) ?? lookup.directories.get(normalized);
}
