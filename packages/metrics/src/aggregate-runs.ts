import { mean, sampleStandardDeviation } from "simple-statistics";
import { prepareGold, scorePrepared } from "./score-localization.js";
import type { PredictionTargets, ScoreLocalizationInput, ScoreReport } from "./score-report.js";

/** A metric across runs (seeds): mean ± sample standard deviation of the per-run values. */
export interface RunAggregate {
  key: string;
  mean: number;
  /** Sample standard deviation (n − 1); null with a single run. */
  sd: number | null;
  runs: number;
  values: number[];
}

/**
 * Aggregates the same metrics over several runs of one localizer (docs/definitions.md §3, "across
 * seeds"): mean ± sample standard deviation of the per-run averages, as SHERLOC reports
 * "84.33 ± 0.72". Metrics missing from some run are an error, naming the metric and run.
 */
export function aggregateRuns(reports: readonly ScoreReport[]): Record<string, RunAggregate> {
  if (reports.length === 0) throw new Error("aggregateRuns requires at least one run");
  const keys = Object.keys(reports[0]?.metrics ?? {});
  const result: Record<string, RunAggregate> = {};
  for (const key of keys) {
    const values = reports.map((report, run) => {
      const metric = report.metrics[key];
      if (!metric) throw new Error(`aggregateRuns: metric ${key} is missing from run ${run}`);
      return metric.value;
    });
    result[key] = {
      key,
      mean: mean(values),
      sd: values.length < 2 ? null : sampleStandardDeviation(values),
      runs: values.length,
      values,
    };
  }
  return result;
}

/** Every run's report and the metrics across runs (mean ± sample standard deviation). */
export interface ScoreRunsResult {
  reports: ScoreReport[];
  aggregate: Record<string, RunAggregate>;
}

/**
 * Scores several runs of one localizer (seeds, or repeated trials) against the same gold,
 * preparing the gold once, and aggregates them across runs (docs/definitions.md §3).
 */
export function scoreRuns(
  input: Omit<ScoreLocalizationInput, "predictions"> & { runs: readonly ReadonlyMap<string, PredictionTargets>[] },
): ScoreRunsResult {
  const prepared = prepareGold(input);
  const reports = input.runs.map((predictions) => scorePrepared(prepared, predictions));
  return { reports, aggregate: aggregateRuns(reports) };
}
