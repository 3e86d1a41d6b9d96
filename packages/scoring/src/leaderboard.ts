import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { listPeerOutputs, type PeerOutput } from "./peer-outputs.js";
import { type ScorePredictionsFileResult, scorePredictionsFile } from "./score-predictions-file.js";

/** One system scored three times: under the unified definitions, under its own preset, and by SHERLOC's evaluator. */
export interface LeaderboardEntry {
  output: PeerOutput;
  unified: ScorePredictionsFileResult;
  own: ScorePredictionsFileResult;
  /** The `sherloc` preset: its file recall is SHERLOC's "Accuracy@1" / "Recall@1" on the same predictions. */
  sherloc: ScorePredictionsFileResult;
}

/** One row of the long-form leaderboard table: a system, a preset, a metric and its value. */
export interface LeaderboardRow {
  system: string;
  benchmark: string;
  preset: string;
  metric: string;
  value: number;
  n: number;
  excluded: number;
}

/** k = 1 … 10: the unified preset's k values in the leaderboard, enough for recall@k curves. */
export const CURVE_KS: readonly number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/**
 * Scores every bundled localization output under `unified` (k = 1 … 10 unless `ks` is given),
 * under the peer's own preset and by SHERLOC's evaluator (`sherloc`)
 * (issue: "every published localization number re-derivable from the peer's own output").
 * `onProgress` is called after each file (the whole set takes a few seconds).
 */
export async function scorePeerLeaderboard(
  options: {
    dataDir?: string;
    ks?: readonly number[];
    onProgress?: (done: number, total: number, system: string) => void;
  } = {},
): Promise<LeaderboardEntry[]> {
  const dataDir = resolveDataDir(options.dataDir ? { dataDir: options.dataDir } : {});
  const outputs = listPeerOutputs({ dataDir });
  const entries: LeaderboardEntry[] = [];
  for (const output of outputs) {
    const common = {
      benchmark: output.benchmark,
      predictions: join(dataDir, output.file),
      format: output.format,
      dataDir,
    };
    const unified = await scorePredictionsFile({ ...common, preset: "unified", ks: options.ks ?? CURVE_KS });
    const own = await scorePredictionsFile({ ...common, preset: output.preset });
    const sherloc = await scorePredictionsFile({ ...common, preset: "sherloc" });
    entries.push({ output, unified, own, sherloc });
    options.onProgress?.(entries.length, outputs.length, output.system);
  }
  return entries;
}

/** The leaderboard as long-form rows (one per system × preset × metric), ready for a table. */
export function leaderboardRows(entries: readonly LeaderboardEntry[]): LeaderboardRow[] {
  return entries.flatMap(({ output, unified, own, sherloc }) =>
    [unified, own, sherloc].flatMap((result) =>
      Object.values(result.report.metrics).map((metric) => ({
        system: output.system,
        benchmark: output.benchmark,
        preset: result.report.preset,
        metric: metric.key,
        value: metric.value,
        n: metric.n,
        excluded: metric.excluded,
      })),
    ),
  );
}

/**
 * Comparable columns across presets, each mapped to the key a preset reports it under
 * (presets name and define their headline metrics differently: CoSIL's "TOP-k" is hit@k,
 * LocAgent's and BLAgent's Acc@k is acc@k). A preset without the metric leaves it blank.
 */
export const LEADERBOARD_COLUMNS: Record<string, Partial<Record<string, string>>> = {
  "file acc@1": { unified: "file.acc@1", locagent: "file.acc@1", blagent: "file.acc@1" },
  "file hit@1": { unified: "file.hit@1", cosil: "file.hit@1" },
  "file acc@5": { unified: "file.acc@5", locagent: "file.acc@5", blagent: "file.acc@5" },
  "file hit@5": { unified: "file.hit@5", cosil: "file.hit@5" },
  "file recall@5": { unified: "file.recall@5", locagent: "file.recall@5" },
  "file MRR": { unified: "file.mrr", blagent: "file.mrr", cosil: "file.mrr" },
  "module acc@5": { unified: "module.acc@5", locagent: "module.acc@5" },
  "function acc@5": { unified: "function.acc@5", locagent: "function.acc@5" },
  "function hit@5": { unified: "function.hit@5", cosil: "function.hit@5" },
};

/** The level a leaderboard column reads. */
const columnLevel = (key: string) => key.split(".")[0] as "file" | "module" | "function";

/** One row per system and preset, with the comparable columns of `LEADERBOARD_COLUMNS`. */
export interface LeaderboardWideRow {
  system: string;
  benchmark: string;
  preset: string;
  n: number;
  excluded: number;
  [column: string]: string | number | null;
}

/**
 * SHERLOC's file-level figures, shown on each system's `unified` row (the same predictions
 * under SHERLOC's evaluator; docs/definitions.md §3): its file recall counts every predicted
 * file, where `file acc@1` reads the top-ranked one.
 */
export const SHERLOC_LEADERBOARD_COLUMNS: Record<string, string> = {
  "sherloc file recall": "sherloc.file_recall",
  "sherloc file precision": "sherloc.file_precision",
};

/**
 * The leaderboard side by side: for each system, a `unified` row and a row under its own
 * preset, on the same columns (null where a preset does not report the metric); the `unified`
 * row also carries SHERLOC's file recall and precision (`SHERLOC_LEADERBOARD_COLUMNS`).
 */
export function leaderboardWide(entries: readonly LeaderboardEntry[]): LeaderboardWideRow[] {
  return entries.flatMap(({ output, unified, own, sherloc }) =>
    [unified, own].map((result) => {
      const row: LeaderboardWideRow = {
        system: output.system,
        benchmark: output.benchmark,
        preset: result.report.preset,
        n: result.report.n,
        excluded: result.report.excluded,
      };
      const predicted = { file: result.read.records, ...result.read.levelsPredicted };
      const levelCounts: Partial<Record<"module" | "function", { n: number; excluded: number }>> = {};
      for (const [column, byPreset] of Object.entries(LEADERBOARD_COLUMNS)) {
        const key = byPreset[result.report.preset];
        const metric = key ? result.report.metrics[key] : undefined;
        const level = key ? columnLevel(key) : "file";
        // A level the system does not predict at all is blank, not 0 (BLAgent ranks files only).
        row[column] = metric && predicted[level] > 0 ? metric.value : null;
        if (metric && level !== "file" && predicted[level] > 0)
          levelCounts[level] = { n: metric.n, excluded: metric.excluded };
      }
      for (const level of ["module", "function"] as const) {
        row[`${level} n`] = levelCounts[level]?.n ?? null;
        row[`${level} excluded`] = levelCounts[level]?.excluded ?? null;
      }
      for (const [column, key] of Object.entries(SHERLOC_LEADERBOARD_COLUMNS))
        row[column] = result === unified ? (sherloc.report.metrics[key]?.value ?? null) : null;
      return row;
    }),
  );
}

/** recall@k over k for every system under the unified preset, for a curve per system. */
export function recallCurves(
  entries: readonly LeaderboardEntry[],
  level: "file" | "module" | "function" = "file",
): { system: string; benchmark: string; label: string; k: number; recall: number }[] {
  return entries.flatMap(({ output, unified }) =>
    Object.values(unified.report.metrics)
      .filter((metric) => metric.key.startsWith(`${level}.recall@`))
      .map((metric) => ({
        system: output.system,
        benchmark: output.benchmark,
        label: `${output.system} (${output.benchmark})`,
        k: Number(metric.key.split("@")[1]),
        recall: metric.value,
      })),
  );
}
