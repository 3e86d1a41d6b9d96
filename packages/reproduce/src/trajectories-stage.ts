import { toCsv } from "@loclab/runner";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  analyzeRealTrajectories,
  breakdownArtifact,
  breakdownTable,
  outcomeChart,
  overlapHeatmap,
  pairwiseTable,
} from "@loclab/analysis";
import { writeChart } from "@loclab/charts";
import { quiet, type StageOptions, type StageResult } from "./stage.js";

/**
 * Stage 4 of `loclab reproduce`: the failure breakdown (docs/definitions.md §8) of the four real agent
 * runs in the data folder on their 41 common tasks — the breakdown table, the pairwise exact
 * McNemar tests, the outcome chart and the overlap heatmap.
 */
export async function trajectoriesStage(options: StageOptions): Promise<StageResult> {
  const warn = options.warn ?? options.progress ?? quiet;
  const analysis = await analyzeRealTrajectories(options.dataDir ? { dataDir: options.dataDir } : {});
  for (const problem of analysis.problems)
    warn(`trajectory not used: ${problem.run}: ${problem.path}: ${problem.reason}`);
  for (const check of analysis.manifestCheck.filter((c) => !c.agrees))
    warn(`solved set of ${check.run} differs from the manifest labels (${check.solved} vs ${check.expected})`);
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    const path = join(options.out, name);
    await writeFile(path, text);
    written.push(path);
  };
  const table = breakdownTable(analysis.breakdown);
  await write("trajectory-breakdown.csv", toCsv(table));
  await write("trajectory-pairwise.csv", toCsv(pairwiseTable(analysis.breakdown)));
  const artifact = breakdownArtifact(
    analysis.breakdown,
    options.provenance({ dataDir: analysis.dataDir, tasks: analysis.taskIds.length }),
    { problems: analysis.problems },
  );
  await write("trajectory-breakdown.json", `${JSON.stringify(artifact, null, 2)}\n`);
  written.push(
    ...(await writeChart(outcomeChart(analysis.breakdown), join(options.out, "trajectory-outcomes"), {
      formats: ["svg", "png"],
    })),
  );
  written.push(
    ...(await writeChart(overlapHeatmap(analysis.breakdown), join(options.out, "trajectory-overlap"), {
      formats: ["svg", "png"],
    })),
  );
  return {
    written,
    rows: table.objects() as object[],
    footer: `${analysis.breakdown.everSolved} of ${analysis.taskIds.length} tasks solved by at least one run; base: ${analysis.base}`,
  };
}
