import type { GoldLocations } from "@loclab/gold";
import type { ShuffleMapping } from "./shuffle-mapping.js";
import { mapPathByFolders, shuffleLookup, type ShuffleDirection } from "./shuffle-paths.js";
import { normalizeRepoPath } from "../known-files/known-files.js";

/** Gold locations with every path taken through a shuffle mapping. */
export interface MappedGold {
  gold: GoldLocations;
  /**
   * Paths the mapping does not hold, mapped by their longest known folder (`mapPathByFolders`):
   * usually files the patch creates, or gold files missing from the checkout. Sorted, unique.
   */
  unmapped: string[];
}

/**
 * Gold locations (docs/definitions.md §2) of the original repository, in the shuffled tree's names
 * (repository shuffling, docs/definitions.md §4): every path field — `files`, `created`, `deleted`,
 * `renamed`, `binary`, and the `path` of spans, hunks, added lines and symbols — goes through
 * the mapping. Line numbers, symbol names and hunk text stay as they are (shuffling renames
 * files and folders, not code; the import lines it rewrites do not move).
 *
 * A path the mapping lacks (a created file) is mapped by its folders and reported.
 * `unmapGold(m, mapGold(m, g).gold).gold` deep-equals `g`. Pure.
 *
 * @example mapGold(mapping, goldFromPatch(row.patch, { instanceId: row.instance_id })).gold.files
 * // ["d_k3x9q2/d_0hq7re/d_p1m4xa/m_p8w1z0.py"]
 */
export function mapGold(mapping: ShuffleMapping, gold: GoldLocations): MappedGold {
  return throughMapping(mapping, gold, "map");
}

/** `mapGold` backwards: gold in shuffled names back to the original repository's. */
export function unmapGold(mapping: ShuffleMapping, gold: GoldLocations): MappedGold {
  return throughMapping(mapping, gold, "unmap");
}

function throughMapping(mapping: ShuffleMapping, gold: GoldLocations, direction: ShuffleDirection): MappedGold {
  const lookup = shuffleLookup(mapping, direction);
  const unmapped = new Set<string>();
  const to = (path: string) => {
    const normalized = normalizeRepoPath(path);
    if (!lookup.files.has(normalized) && !lookup.directories.has(normalized)) unmapped.add(path);
    return mapPathByFolders(mapping, path, direction);
  };
  const mapped: GoldLocations = {
    ...gold,
    files: gold.files.map(to),
    created: gold.created.map(to),
    deleted: gold.deleted.map(to),
    renamed: gold.renamed.map((rename) => ({ from: to(rename.from), to: to(rename.to) })),
    binary: gold.binary.map(to),
    spans: gold.spans.map((span) => ({ ...span, path: to(span.path) })),
    hunks: gold.hunks.map((hunk) => ({ ...hunk, path: to(hunk.path) })),
    addedLines: gold.addedLines.map((added) => ({ ...added, path: to(added.path) })),
    symbols: gold.symbols.map((symbol) => ({ ...symbol, path: to(symbol.path) })),
  };
  return { gold: mapped, unmapped: [...unmapped].sort() };
}
