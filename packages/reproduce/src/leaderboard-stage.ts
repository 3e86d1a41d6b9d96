import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { lineChart, writeChart } from "@loclab/charts";
import { leaderboardRows, leaderboardWide, recallCurves, scorePeerLeaderboard } from "@loclab/scoring";
import { ARTIFACT_KINDS, makeArtifact } from "@loclab/schemas";
import { toCsv } from "@loclab/runner";
import { fixed } from "@loclab/statistics";
import { quiet, type StageOptions, type StageResult } from "./stage.js";

/**
 * Stage 2 of `loclab reproduce`: every localization output bundled in the data folder,
 * scored under the unified definitions and under its own peer preset (docs/definitions.md §3), side by
 * side; plus recall@k curves. Writes `localization-leaderboard.{csv,json}`, the long form
 * (every metric) and the curves chart.
 */
export async function leaderboardStage(options: StageOptions): Promise<StageResult> {
  const progress = options.progress ?? quiet;
  const entries = await scorePeerLeaderboard({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    onProgress: (done, total, system) => progress(`leaderboard ${done}/${total}: ${system}`),
  });
  const wide = leaderboardWide(entries);
  const long = leaderboardRows(entries);
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    const path = join(options.out, name);
    await writeFile(path, text);
    written.push(path);
  };
  await write("localization-leaderboard.csv", toCsv(wide));
  await write("localization-leaderboard-long.csv", toCsv(long));
  const provenance = options.provenance({
    dataDir: options.dataDir ?? null,
    files: entries.map((entry) => entry.output.file),
  });
  const payload = entries.map(({ output, unified, own }) => ({
    ...output,
    unified: {
      n: unified.report.n,
      excluded: unified.report.excluded,
      gold: unified.goldSource,
      metrics: valuesOf(unified.report.metrics),
    },
    own: {
      n: own.report.n,
      excluded: own.report.excluded,
      gold: own.goldSource,
      metrics: valuesOf(own.report.metrics),
    },
    read: {
      records: unified.read.records,
      duplicatesRemoved: unified.read.duplicatesRemoved,
      unknownInstanceIds: unified.read.unknownInstanceIds.length,
      emptyFileRankings: unified.read.emptyFileRankings,
    },
  }));
  await write(
    "localization-leaderboard.json",
    `${JSON.stringify(makeArtifact(ARTIFACT_KINDS.localizationLeaderboard, payload, provenance), null, 2)}\n`,
  );
  const curves = lineChart({
    data: recallCurves(entries),
    x: { field: "k", title: "k" },
    y: { field: "recall", title: "file recall@k (unified)" },
    color: { field: "system", title: "system" },
    column: { field: "benchmark", title: "benchmark" },
    yDomain: [0, 1],
    title: "File-level recall@k of the bundled localizers",
  });
  written.push(
    ...(await writeChart(curves, join(options.out, "localization-recall-curves"), { formats: ["svg", "png"] })),
  );
  const rows = wide.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        typeof value === "number" && !Number.isInteger(value) ? fixed(value, 4) : (value ?? ""),
      ]),
    ),
  );
  return { written, rows };
}

function valuesOf(metrics: Record<string, { value: number }>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).map(([key, metric]) => [key, metric.value]));
}
