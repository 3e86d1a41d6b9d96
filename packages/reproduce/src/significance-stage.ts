import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { heatmap, writeChart } from "@loclab/charts";
import { resolveDataDir } from "@loclab/datasets";
import { fixed, leaderboardSignificance, pairwiseMatrixRows, parseResolvedMatrix } from "@loclab/statistics";
import { ARTIFACT_KINDS, makeArtifact } from "@loclab/schemas";
import { toCsv } from "@loclab/runner";

import { quiet, type StageOptions, type StageResult } from "./stage.js";

/** The leaderboard resolved matrices this stage reads (data README, resolved/). */
export const RESOLVED_MATRICES = { lite: "resolved/lite.csv", verified: "resolved/verified.csv" } as const;

/**
 * Stage 3 of `loclab reproduce`: how far apart SWE-bench leaderboard entries really are
 * (docs/definitions.md §7). For Lite (42 systems) and Verified (36): resolve rates with Wilson
 * intervals and clustered SEs, every pair by exact McNemar with Holm, neighbouring entries
 * significantly apart, and the tasks a paired study needs to detect +5.95 pp at 80 % power.
 */
export async function significanceStage(options: StageOptions): Promise<StageResult> {
  const progress = options.progress ?? quiet;
  const dataDir = resolveDataDir(options.dataDir ? { dataDir: options.dataDir } : {});
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    const path = join(options.out, name);
    await writeFile(path, text);
    written.push(path);
  };
  const summary = [];
  for (const [name, file] of Object.entries(RESOLVED_MATRICES)) {
    const path = join(dataDir, file);
    const matrix = parseResolvedMatrix(await readFile(path, "utf8"), { source: path });
    const result = leaderboardSignificance(matrix);
    progress(`${name}: ${matrix.systems.length} systems, ${result.comparison.pairs.length} pairs`);
    await write(
      `significance-${name}-systems.csv`,
      toCsv(
        result.comparison.systems.map(({ wilson, ...system }) => ({
          ...system,
          wilsonLower: wilson[0],
          wilsonUpper: wilson[1],
        })),
      ),
    );
    await write(`significance-${name}-pairs.csv`, toCsv(result.comparison.pairs));
    await write(`significance-${name}-neighbours.csv`, toCsv(result.neighbours));
    const { order, rows } = pairwiseMatrixRows(result.comparison);
    const chart = heatmap({
      data: rows,
      x: { field: "a", title: "system" },
      y: { field: "b", title: "system" },
      value: { field: "pHolm", title: "Holm-adjusted p: below or above 0.05" },
      order,
      thresholds: [0.05],
      reverse: true,
      labels: false,
      cellSize: 12,
      title: `SWE-bench ${name}: pairwise exact McNemar p (Holm)`,
    });
    written.push(
      ...(await writeChart(chart, join(options.out, `significance-${name}-heatmap`), { formats: ["svg", "png"] })),
    );
    summary.push({
      benchmark: name,
      systems: matrix.systems.length,
      tasks: matrix.instanceIds.length,
      pairs: result.comparison.pairs.length,
      significantPairsHolm: result.comparison.pairs.filter((pair) => pair.pHolm < result.alpha).length,
      neighbours: result.neighbours.length,
      significantNeighbours: result.significantNeighbours,
      medianNeighbourPsi: result.medianNeighbourPsi,
      deltaPp: result.delta * 100,
      tasksNeeded: result.tasksNeeded,
      minimumDetectableEffectPp: result.minimumDetectableEffect === null ? null : result.minimumDetectableEffect * 100,
    });
  }
  await write(
    "significance-summary.json",
    `${JSON.stringify(makeArtifact(ARTIFACT_KINDS.leaderboardSignificance, summary, options.provenance({ dataDir, matrices: RESOLVED_MATRICES })), null, 2)}\n`,
  );
  await write("significance-summary.csv", toCsv(summary));
  const rows = summary.map((row) => ({
    ...row,
    medianNeighbourPsi: fixed(row.medianNeighbourPsi, 3),
    minimumDetectableEffectPp: row.minimumDetectableEffectPp?.toFixed(2) ?? "",
  }));
  return { written, rows };
}
