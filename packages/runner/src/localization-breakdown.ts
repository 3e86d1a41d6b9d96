import { type LocalizationBreakdownRow, localizationCellRows, type PlannedCell } from "@loclab/analysis";
import { type ControlComparison, cellLabel, controlLabel, readRunFolder, runLayout } from "@loclab/schemas";
import { parseRunSpec } from "./load-run-spec.js";
import { planRun } from "./run-plan.js";
import { scoreRun } from "./score-run.js";

export interface LocalizationBreakdown {
  dir: string;
  rows: LocalizationBreakdownRow[];
  /** Each control against `plain` on `pairedMetric`, per seed and pooled (as `scoreRun` gives them). */
  comparisons: ControlComparison[];
  pairedMetric: string;
  /** Trajectories that could not be read (named with the reason); their keys count by their records alone. */
  problems: string[];
}

/**
 * The breakdown of a loclab localization run, read from its folder through the schemas
 * (`readRunFolder`): per cell (seed × control) of the run's plan, the analysis package's rows
 * (`localizationCellRows`: keys by how they ended, loops, paths that do not exist), and the
 * paired tests of each control against plain on `pairedMetric` (`scoreRun`, nothing written).
 */
export async function localizationBreakdown(
  dir: string,
  options: { pairedMetric?: string; repeatedLine?: number } = {},
): Promise<LocalizationBreakdown> {
  const folder = await readRunFolder(dir).catch((error: Error) => {
    if (/no manifest\.json/.test(error.message))
      throw new Error(
        `${dir}: no manifest.json: not a run folder (loclab breakdown DIR reads the folder of a loclab run)`,
      );
    throw error;
  });
  const spec = parseRunSpec(folder.manifest.spec, { source: runLayout.manifest(dir) });
  const plan = await planRun(spec);
  const cells: PlannedCell[] = plan.cells.map((cell) => {
    const label = cellLabel(cell);
    return {
      cell: label,
      seed: cell.seed,
      control: controlLabel(cell.control),
      keys: plan.attempts.filter((attempt) => attempt.cellLabel === label).map((attempt) => attempt.key),
    };
  });
  const { rows, problems } = await localizationCellRows(
    folder,
    cells,
    options.repeatedLine !== undefined ? { repeatedLine: options.repeatedLine } : {},
  );
  const pairedMetric = options.pairedMetric ?? "file.acc@1";
  const { comparisons } = await scoreRun(dir, { pairedMetric, write: false });
  return { dir, rows, comparisons, pairedMetric, problems };
}
