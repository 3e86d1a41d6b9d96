import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { barChart, writeChart } from "@loclab/charts";
import { type BenchmarkName, loadBenchmark } from "@loclab/datasets";
import {
  type BenchmarkGoldReport,
  type BenchmarkGoldSummary,
  benchmarkGoldReport,
  extractGold,
  summarizeGold,
} from "@loclab/gold";
import { ARTIFACT_KINDS, makeArtifact, type Provenance } from "@loclab/schemas";
import * as aq from "arquero";
import { toCsv } from "@loclab/runner";
import { quiet, type StageOptions, type StageResult } from "./stage.js";

/** How many repositories the "instances per repository" chart shows (Loc-Bench has 160+). */
const TOP_REPOS = 15;

/**
 * Stage 1 of `loclab reproduce`: load the benchmarks, extract gold locations (docs/definitions.md §2)
 * and write the gold summary, per-instance and per-repository CSVs and two charts.
 * Returns the files written; throws nothing for a bad patch (it is reported and counted).
 */
export async function goldStage(
  options: StageOptions & { benchmarks: BenchmarkName[] },
): Promise<StageResult & { failures: number }> {
  const progress = options.progress ?? quiet;
  const warn = options.warn ?? progress;
  const summaries: BenchmarkGoldSummary[] = [];
  const reports: BenchmarkGoldReport[] = [];
  for (const name of options.benchmarks) {
    progress(`loading ${name}`);
    const benchmark = await loadBenchmark(name, options.dataDir ? { dataDir: options.dataDir } : {});
    const { golds, failures } = extractGold(benchmark.instances);
    const summary = summarizeGold(name, benchmark.instances, golds);
    summaries.push(summary);
    reports.push(benchmarkGoldReport(summary, benchmark.path, failures));
    progress(
      `${name}: ${benchmark.instances.length} instances, ${summary.repos.length} repositories, ${failures.length} gold failures`,
    );
    for (const failure of failures) warn(`gold failed: ${failure.message}`);
  }
  const provenance = options.provenance({ benchmarks: options.benchmarks, dataDir: options.dataDir ?? null });
  const written = await writeResults(options.out, summaries, reports, provenance);
  const rows = reports.map((report) => ({
    benchmark: report.benchmark,
    instances: report.instances,
    repos: report.repos,
    goldFilesMean: round(report.goldFilesPerInstance.mean),
    goldFilesMax: report.goldFilesPerInstance.max,
    multiFile: report.multiFileInstances,
    spansMean: round(report.spansPerInstance.mean),
    withCreated: report.instancesWithCreatedFiles,
    failures: report.failures.length,
  }));
  return { written, rows, failures: reports.reduce((sum, report) => sum + report.failures.length, 0) };
}

async function writeResults(
  out: string,
  summaries: BenchmarkGoldSummary[],
  reports: BenchmarkGoldReport[],
  provenance: Provenance,
): Promise<string[]> {
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    const path = join(out, name);
    await writeFile(path, text);
    written.push(path);
  };

  await write(
    "gold-summary.json",
    `${JSON.stringify(makeArtifact(ARTIFACT_KINDS.goldSummary, { benchmarks: reports }, provenance), null, 2)}\n`,
  );
  const perInstance = summaries.flatMap((summary) =>
    summary.perInstance.map((row) => ({ benchmark: summary.benchmark, ...row })),
  );
  await write("gold-per-instance.csv", toCsv(perInstance));
  const perRepo = summaries.flatMap((summary) =>
    summary.repos.map((row) => ({ benchmark: summary.benchmark, ...row })),
  );
  await write("gold-per-repo.csv", toCsv(perRepo));

  const topRepos = new Set(
    aq
      .from(perRepo)
      .groupby("repo")
      .rollup({ instances: aq.op.sum("instances") })
      .orderby(aq.desc("instances"), "repo")
      .objects({ limit: TOP_REPOS })
      .map((row) => (row as { repo: string }).repo),
  );
  const reposChart = barChart({
    data: perRepo
      .filter((row) => topRepos.has(row.repo))
      .map(({ benchmark, repo, instances }) => ({ benchmark, repo, instances })),
    x: { field: "repo", title: "repository" },
    y: { field: "instances", title: "instances" },
    color: { field: "benchmark" },
    horizontal: true,
    sort: "value-descending",
    title: `Instances per repository (top ${TOP_REPOS})`,
  });
  written.push(...(await writeChart(reposChart, join(out, "instances-per-repo"), { formats: ["svg", "png"] })));

  const filesChart = barChart({
    data: perInstance.map((row) => ({
      benchmark: row.benchmark,
      goldFiles: row.goldFiles >= 5 ? "5+" : String(row.goldFiles),
      instances: 1,
    })),
    x: { field: "goldFiles", title: "gold files per instance", type: "ordinal" },
    y: { field: "instances", title: "instances" },
    color: { field: "benchmark" },
    title: "Gold files per instance",
  });
  written.push(...(await writeChart(filesChart, join(out, "gold-files-per-instance"), { formats: ["svg", "png"] })));
  return written;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
