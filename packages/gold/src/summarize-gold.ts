import type { GoldLocations } from "./gold-types.js";

/** One row per instance: how much gold it has. */
export interface InstanceGoldRow {
  instanceId: string;
  repo: string;
  goldFiles: number;
  createdFiles: number;
  spans: number;
  hunks: number;
  addedLines: number;
}

/** One row per repository of a benchmark. */
export interface RepoGoldRow {
  repo: string;
  instances: number;
  goldFiles: number;
  createdFiles: number;
  spans: number;
  meanGoldFiles: number;
}

export interface BenchmarkGoldSummary {
  benchmark: string;
  instances: number;
  /** Instances whose gold has no file (excluded from metrics, docs/definitions.md §3). */
  emptyGold: number;
  repos: RepoGoldRow[];
  perInstance: InstanceGoldRow[];
}

/**
 * Counts per repository and per instance for a benchmark's gold (the summary `npm run
 * reproduce` writes). Instances without gold (a failed patch) are left out of the
 * per-instance rows; pass the failures on separately.
 * Repositories are sorted by instance count, then name, so tables are stable.
 */
export function summarizeGold(
  benchmark: string,
  instances: readonly { instance_id: string; repo: string }[],
  golds: readonly GoldLocations[],
): BenchmarkGoldSummary {
  const repoOf = new Map(instances.map((instance) => [instance.instance_id, instance.repo]));
  const perInstance: InstanceGoldRow[] = golds.map((gold) => ({
    instanceId: gold.instanceId,
    repo: repoOf.get(gold.instanceId) ?? "<unknown>",
    goldFiles: gold.files.length,
    createdFiles: gold.created.length,
    spans: gold.spans.length,
    hunks: gold.hunks.length,
    addedLines: gold.addedLines.reduce((sum, block) => sum + block.lines.length, 0),
  }));
  const byRepo = new Map<string, RepoGoldRow>();
  for (const row of perInstance) {
    const repo = byRepo.get(row.repo) ?? {
      repo: row.repo,
      instances: 0,
      goldFiles: 0,
      createdFiles: 0,
      spans: 0,
      meanGoldFiles: 0,
    };
    repo.instances += 1;
    repo.goldFiles += row.goldFiles;
    repo.createdFiles += row.createdFiles;
    repo.spans += row.spans;
    byRepo.set(row.repo, repo);
  }
  const repos = [...byRepo.values()]
    .map((repo) => ({ ...repo, meanGoldFiles: repo.goldFiles / repo.instances }))
    .sort((a, b) => b.instances - a.instances || a.repo.localeCompare(b.repo));
  return {
    benchmark,
    instances: instances.length,
    emptyGold: perInstance.filter((row) => row.goldFiles === 0).length,
    repos,
    perInstance,
  };
}
