import { type SherlocAggregate, type SherlocEntry, aggregateSherloc } from "./sherloc-aggregate.js";
import type { SherlocChunkOptions, SherlocChunkScores } from "./sherloc-chunks.js";
import type { SherlocFileScores } from "./sherloc-file-level.js";
import { SHERLOC_SUCCESS, sherlocInstanceScores } from "./sherloc-instance.js";
import type { SherlocLocation } from "./sherloc-location.js";
import type { MetricValue, PredictionTargets, ScoreReport } from "./score-report.js";

/** A prediction as the `sherloc` preset reads it: its locations and files, and the generation's status. */
export interface SherlocPredictionTargets extends PredictionTargets {
  /** SHERLOC's generation status (`success`, `failed`, `skipped`, …); absent means success. */
  status?: string;
  /** The locations exactly as a SHERLOC output file wrote them; when given, scored instead of `locations` and `files`. */
  sherlocLocations?: readonly SherlocLocation[];
}

export interface ScoreSherlocInput {
  /** The universe of instances; one without a prediction counts as a failed generation. */
  instanceIds: readonly string[];
  /** SHERLOC's gold locations per instance (`sherlocGoldLocations` of the patch); absent means none. */
  gold: ReadonlyMap<string, readonly SherlocLocation[]>;
  predictions: ReadonlyMap<string, SherlocPredictionTargets>;
  chunkOptions?: SherlocChunkOptions;
}

/** The metrics of the `sherloc` preset: SHERLOC's key, where it is read, and what it means. */
const METRICS: readonly {
  key: string;
  pick: (file: SherlocFileScores, chunk: SherlocChunkScores) => number;
  definition: string;
}[] = [
  {
    key: "file_recall",
    pick: (file) => file.recall,
    definition: "|G ∩ P| / |G| over every predicted file (SHERLOC's Accuracy@1 on Lite, Recall@1 on Verified)",
  },
  { key: "file_precision", pick: (file) => file.precision, definition: "|G ∩ P| / |P| over distinct files" },
  { key: "file_f1", pick: (file) => file.f1, definition: "per-instance F1 of file precision and recall, averaged" },
  {
    key: "file_exact_match",
    pick: (file) => file.exact_match,
    definition: "predicted file set equals the gold file set",
  },
  {
    key: "file_accuracy",
    pick: (file) => file.accuracy,
    definition: "Jaccard |G ∩ P| / |G ∪ P| of the file sets (not the paper's Accuracy@1)",
  },
  {
    key: "chunk_coverage_recall",
    pick: (_, chunk) => chunk.coverage_recall,
    definition: "gold chunks contained by one predicted range of the same file, over gold chunks",
  },
  {
    key: "chunk_precision",
    pick: (_, chunk) => chunk.precision,
    definition: "predicted ranges containing at least one gold chunk, over predicted ranges",
  },
  {
    key: "chunk_avg_tightness",
    pick: (_, chunk) => chunk.avg_prediction_tightness,
    definition: "per instance, gold length / tightest containing range over contained chunks (0 when none), averaged",
  },
  {
    key: "chunk_overlap_recall",
    pick: (_, chunk) => chunk.overlap_recall,
    definition:
      "gold chunks contained, overlapped at IoU ≥ 0.8, or near-missed (an endpoint within 1 line), over gold chunks; SHERLOC writes it per instance, loclab averages it",
  },
  {
    key: "chunk_avg_overlap_score",
    pick: (_, chunk) => chunk.avg_overlap_score,
    definition:
      "per instance, mean match score over matched chunks (1, the IoU, or the near-miss score), averaged; SHERLOC writes it per instance, loclab averages it",
  },
  {
    key: "chunk_partial_precision",
    pick: (_, chunk) => chunk.partial_precision,
    definition:
      "predicted ranges useful at any degree, over predicted ranges; SHERLOC writes it per instance, loclab averages it",
  },
];

/**
 * The locations SHERLOC's evaluator would read from a prediction: every line-span location
 * as written (order and repeats kept), then each ranked file that no location names, as a
 * file-only entry. A file-ranking output (BLAgent, LocAgent) thus counts at file level with
 * all its files, and in no chunk count, which is how SHERLOC's evaluator treats an entry
 * without lines.
 */
export function sherlocLocationsOf(prediction: PredictionTargets): SherlocLocation[] {
  const locations: SherlocLocation[] = (prediction.locations ?? []).map((span) => ({
    file_path: span.path,
    start_line: span.startLine,
    end_line: span.endLine,
  }));
  const named = new Set(locations.map((location) => location.file_path));
  for (const file of prediction.files)
    if (!named.has(file)) {
      named.add(file);
      locations.push({ file_path: file });
    }
  return locations;
}

export interface SherlocScoreReport extends ScoreReport {
  preset: "sherloc";
  /** SHERLOC's own report for the run: its key names, averages in percent. */
  sherloc: SherlocAggregate;
}

/** Whether a report came from the `sherloc` preset (and so carries SHERLOC's own figures). */
export function isSherlocReport(report: ScoreReport): report is SherlocScoreReport {
  return report.preset === "sherloc" && "sherloc" in report;
}

/**
 * Scores predictions as SHERLOC's evaluator and metrics class do (docs/definitions.md §3,
 * "SHERLOC's evaluator"): every instance is one generation; a missing prediction counts as a
 * failed one (all zeros); instances whose gold yields no location are excluded (NaN) and
 * counted. The report's values are fractions (loclab's convention) with per-instance columns
 * for paired tests; `sherloc` holds SHERLOC's own figures, in percent, as it prints them.
 */
export function scoreSherloc(input: ScoreSherlocInput): SherlocScoreReport {
  const ids = input.instanceIds;
  const columns = METRICS.map(() => new Float64Array(ids.length));
  const entries: SherlocEntry[] = [];
  let missingPredictions = 0;
  ids.forEach((id, i) => {
    const gold = input.gold.get(id) ?? [];
    const prediction = input.predictions.get(id);
    if (!prediction) missingPredictions += 1;
    const status = prediction ? (prediction.status ?? SHERLOC_SUCCESS) : "missing";
    const scores = sherlocInstanceScores(
      gold,
      { status, locations: prediction ? (prediction.sherlocLocations ?? sherlocLocationsOf(prediction)) : [] },
      input.chunkOptions,
    );
    entries.push({ status, scores });
    METRICS.forEach((metric, m) => {
      (columns[m] as Float64Array)[i] =
        scores.ground_truth_count === 0 ? Number.NaN : metric.pick(scores.file_level, scores.chunk_containment);
    });
  });
  const aggregate = aggregateSherloc(entries);
  const n = aggregate.samples_with_gt;
  const metrics: Record<string, MetricValue> = {};
  METRICS.forEach((metric, m) => {
    const column = columns[m] as Float64Array;
    let sum = 0;
    for (const value of column) if (!Number.isNaN(value)) sum += value;
    const key = `sherloc.${metric.key}`;
    metrics[key] = {
      key,
      definition: `sherloc: ${metric.definition}`,
      value: n > 0 ? sum / n : Number.NaN,
      n,
      excluded: aggregate.samples_no_gt,
      perInstance: column,
    };
  });
  return {
    preset: "sherloc",
    instanceIds: ids,
    n,
    excluded: aggregate.samples_no_gt,
    missingPredictions,
    metrics,
    sherloc: aggregate,
  };
}
