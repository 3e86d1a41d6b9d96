import type { Finding, Prediction } from "@loclab/schemas";
import { normalizeRepoPath } from "../known-files/known-files.js";
import type { ShuffleMapping } from "./shuffle-mapping.js";
import { shuffleLookup, type ShuffleDirection, type ShuffleLookup } from "./shuffle-paths.js";
import { mapIssueText, unmapIssueText } from "./shuffle-issue-text.js";

/**
 * What a path the mapping does not know becomes:
 * - `mark` (default): kept in its rank, prefixed with `UNMAPPED_PATH_PREFIX`, so it can never
 *   match a gold file. A model that writes an original path from memory
 *   (`django/db/models/query.py`) instead of one of the shuffled tree gets no credit for it:
 *   that is the implicit knowledge the control takes away;
 * - `drop`: removed (later items move up a rank);
 * - `keep`: kept as written.
 */
export type UnmappedPathPolicy = "mark" | "drop" | "keep";

/** The prefix `mark` puts before a path the mapping does not know: no repository path starts so. */
export const UNMAPPED_PATH_PREFIX = "<unmapped>/";

export interface MapPredictionsOptions {
  /** Default `mark`. */
  unmapped?: UnmappedPathPolicy;
}

/** One path of a prediction that the mapping did not know. */
export interface UnmappedPredictionPath {
  instanceId: string;
  field: "files" | "locations" | "modules" | "functions";
  path: string;
}

export interface MappedPredictions {
  predictions: Prediction[];
  unmapped: UnmappedPredictionPath[];
}

/**
 * Predictions made on a shuffled tree, back in the original repository's names, ready for
 * scoring against the original gold (repository shuffling, docs/definitions.md §4: "predictions are
 * mapped back before scoring"). Every path goes back through the mapping: `files`,
 * `locations[].path`, and the path part of `modules` / `functions` ids (`path:Name`, the name
 * kept). The finding's five texts go through `unmapIssueText`. Line numbers, roles and
 * symbols are kept.
 *
 * A path is first normalized (`./`, `\`, a leading `/`) and then looked up exactly; a diff's
 * `a/` or `b/` is dropped when only the rest is known. A path the shuffled tree does not have
 * is handled by `options.unmapped` and reported.
 *
 * Pure. For every prediction whose paths all come from the mapping,
 * `unmapPredictions(m, mapPredictions(m, p).predictions).predictions` deep-equals `p`.
 *
 * @example unmapPredictions(mapping, [{ instanceId: "x", files: ["d_k3x9q2/m_p8w1z0.py", "django/x.py"], locations: [] }]).predictions[0].files
 * // ["django/query.py", "<unmapped>/django/x.py"]
 */
export function unmapPredictions(
  mapping: ShuffleMapping,
  predictions: readonly Prediction[],
  options: MapPredictionsOptions = {},
): MappedPredictions {
  return throughMapping(mapping, predictions, "unmap", options);
}

/**
 * `unmapPredictions` forwards: predictions in the original names to the shuffled tree's
 * (for round-trip checks, or to replay a plain run's output on a shuffled tree).
 */
export function mapPredictions(
  mapping: ShuffleMapping,
  predictions: readonly Prediction[],
  options: MapPredictionsOptions = {},
): MappedPredictions {
  return throughMapping(mapping, predictions, "map", options);
}

function throughMapping(
  mapping: ShuffleMapping,
  predictions: readonly Prediction[],
  direction: ShuffleDirection,
  options: MapPredictionsOptions,
): MappedPredictions {
  const policy = options.unmapped ?? "mark";
  const lookup = shuffleLookup(mapping, direction);
  const unmapped: UnmappedPredictionPath[] = [];
  const mapText = direction === "map" ? mapIssueText : unmapIssueText;
  const mapped = predictions.map((prediction) => {
    const note = (field: UnmappedPredictionPath["field"], path: string) =>
      unmapped.push({ instanceId: prediction.instanceId, field, path });
    const path = (field: UnmappedPredictionPath["field"], raw: string): string | undefined => {
      const found = lookUpPrediction(lookup, raw);
      if (found !== undefined) return found;
      note(field, raw);
      return policy === "mark" ? UNMAPPED_PATH_PREFIX + raw : policy === "keep" ? raw : undefined;
    };
    const id = (field: "modules" | "functions", raw: string): string | undefined => {
      const colon = raw.indexOf(":");
      if (colon < 0) return path(field, raw);
      const mappedPath = path(field, raw.slice(0, colon));
      return mappedPath === undefined ? undefined : mappedPath + raw.slice(colon);
    };
    const result: Prediction = {
      ...prediction,
      files: prediction.files.map((file) => path("files", file)).filter(isString),
      locations: prediction.locations.flatMap((location) => {
        const mappedPath = path("locations", location.path);
        return mappedPath === undefined ? [] : [{ ...location, path: mappedPath }];
      }),
    };
    if (prediction.modules) result.modules = prediction.modules.map((module) => id("modules", module)).filter(isString);
    if (prediction.functions) result.functions = prediction.functions.map((fn) => id("functions", fn)).filter(isString);
    if (prediction.finding) result.finding = mapFinding(prediction.finding, (text) => mapText(mapping, text).text);
    return result;
  });
  return { predictions: mapped, unmapped };
}

function lookUpPrediction(lookup: ShuffleLookup, raw: string): string | undefined {
  const path = normalizeRepoPath(raw.trim());
  const found = lookup.files.get(path) ?? lookup.directories.get(path);
  if (found !== undefined) return found;
  const diffPrefix = /^[ab]\/(.+)$/.exec(path);
  return diffPrefix ? lookup.files.get(diffPrefix[1] as string) : undefined;
}

function mapFinding(finding: Finding, mapText: (text: string) => string): Finding {
  return {
    locationExplanation: mapText(finding.locationExplanation),
    rootCause: mapText(finding.rootCause),
    solutionIdea: mapText(finding.solutionIdea),
    dependencies: mapText(finding.dependencies),
    testingImpact: mapText(finding.testingImpact),
  };
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}
