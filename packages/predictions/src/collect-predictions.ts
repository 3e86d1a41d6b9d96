import {
  type Finding,
  JsonlLineError,
  type JsonlReadOptions,
  type Location,
  type Prediction,
  PredictionSchema,
  type SherlocOutputLocation,
  formatZodError,
  streamJsonl,
} from "@loclab/schemas";
import type { z } from "zod";
import { type NormalizePathOptions, normalizeRepoPath, normalizeSymbolId } from "./normalize-path.js";
import type { PredictionFormat, ReadPredictionsOptions, ReadPredictionsResult, ReadReport } from "./read-types.js";

/** A symbol given as its parts (`found_related_locs` names it under its file), so a path with `:` stays whole. */
export interface SymbolRef {
  path: string;
  name: string;
}

/**
 * What a format reader takes from one row, before normalization and de-duplication: the
 * localizer's lists as written.
 */
export interface RawPrediction {
  instanceId: string;
  files: readonly string[];
  /** `path:TopLevelName` ids. */
  modules?: readonly string[];
  /** `path:Class.method` ids, or their parts. */
  functions?: readonly (string | SymbolRef)[];
  locations?: readonly Location[];
  finding?: Finding;
  /** The repository the row names itself (LocAgent's `meta_data.repo`), used when `repoOf` gives none. */
  repo?: string;
  /** `found_related_locs` lines not ranked, by kind (agentless format). */
  ignoredLocKinds?: Readonly<Record<string, number>>;
  /** The generation's own status and reason (SHERLOC's output), passed through. */
  status?: string;
  reason?: string | null;
  /** SHERLOC's locations as written, passed through unchanged for the `sherloc` preset. */
  sherlocLocations?: readonly SherlocOutputLocation[];
}

/** One format: its file, the zod schema of a row (loose: peers' rows carry extra fields), and how a row becomes a `RawPrediction`. */
export interface PredictionSource<Row> {
  file: string;
  format: PredictionFormat;
  schema: z.ZodType<Row, unknown>;
  /** `undefined` passes the line over (SHERLOC's evaluator keeps a failed line as `null`); counted in `report.nullLines`. */
  toRaw: (row: Row) => RawPrediction | undefined;
}

/**
 * Streams a predictions file and turns each row into a `Prediction`, the steps every format
 * shares (docs/definitions.md §3: "a ranked, de-duplicated list of files"):
 * 1. the row is validated by the format's schema (a bad line names file:line, and the
 *    instance when the row has an id; `onBadLine` decides between stop and skip);
 * 2. a later line for an id already seen is dropped (the first line wins) and reported;
 * 3. every path (files, the path part of module and function ids, location paths) is
 *    normalized with `normalizeRepoPath`, using `repoOf` / `knownFilesOf` for the instance;
 * 4. each ranking keeps the first occurrence of an entry (after normalization, so `./a.py` and
 *    `a.py` are one file) and entries left empty are dropped; both are counted;
 * 5. the assembled prediction is checked against `PredictionSchema`.
 * Ids outside `instanceIds` are kept and listed; the scorer joins on the benchmark's ids.
 */
export async function collectPredictions<Row>(
  source: PredictionSource<Row>,
  options: ReadPredictionsOptions = {},
): Promise<ReadPredictionsResult> {
  const report: ReadReport = {
    file: source.file,
    format: source.format,
    records: 0,
    duplicatesRemoved: 0,
    pathsNormalized: 0,
    emptyEntriesDropped: 0,
    emptyFileRankings: 0,
    levelsPredicted: { module: 0, function: 0, span: 0 },
    unknownInstanceIds: [],
    duplicateInstanceIds: [],
    ignoredLocLines: 0,
    ignoredLocKinds: {},
    skipped: [],
  };
  const expected = options.instanceIds ? new Set(options.instanceIds) : undefined;
  const policy: JsonlReadOptions<Row> =
    options.onBadLine === "skip"
      ? { onBadLine: "skip", skipped: report.skipped, schema: source.schema }
      : { schema: source.schema };
  const predictions: Prediction[] = [];
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for await (const { line, value } of streamJsonl(source.file, policy)) {
    const raw = source.toRaw(value);
    if (raw === undefined) {
      report.nullLines = (report.nullLines ?? 0) + 1;
      continue;
    }
    const id = raw.instanceId;
    if (seen.has(id)) {
      report.records += 1;
      if (!duplicates.has(id)) report.duplicateInstanceIds.push(id);
      duplicates.add(id);
      continue;
    }
    const tally: Tally = { duplicatesRemoved: 0, pathsNormalized: 0, emptyEntriesDropped: 0 };
    const built = buildPrediction(raw, normalizeOptions(raw, options), tally);
    const checked = PredictionSchema.safeParse(built);
    if (!checked.success) {
      const error = new JsonlLineError(source.file, line, `${id}: ${formatZodError(checked.error)}`);
      if (options.onBadLine !== "skip") throw error;
      report.skipped.push(error);
      continue;
    }
    seen.add(id);
    report.records += 1;
    report.duplicatesRemoved += tally.duplicatesRemoved;
    report.pathsNormalized += tally.pathsNormalized;
    report.emptyEntriesDropped += tally.emptyEntriesDropped;
    if (expected && !expected.has(id)) report.unknownInstanceIds.push(id);
    for (const [kind, count] of Object.entries(raw.ignoredLocKinds ?? {})) {
      report.ignoredLocLines += count;
      report.ignoredLocKinds[kind] = (report.ignoredLocKinds[kind] ?? 0) + count;
    }
    if (checked.data.files.length === 0) report.emptyFileRankings += 1;
    if ((checked.data.modules?.length ?? 0) > 0) report.levelsPredicted.module += 1;
    if ((checked.data.functions?.length ?? 0) > 0) report.levelsPredicted.function += 1;
    if (checked.data.locations.length > 0) report.levelsPredicted.span += 1;
    predictions.push(checked.data);
  }
  return { predictions, report };
}

function normalizeOptions(raw: RawPrediction, options: ReadPredictionsOptions): NormalizePathOptions {
  const repo = options.repoOf?.(raw.instanceId) ?? raw.repo;
  const knownFiles = options.knownFilesOf?.(raw.instanceId);
  return { ...(repo ? { repo } : {}), ...(knownFiles ? { knownFiles } : {}) };
}

/** What building one prediction changed; added to the report only when the prediction is kept. */
type Tally = Pick<ReadReport, "duplicatesRemoved" | "pathsNormalized" | "emptyEntriesDropped">;

function buildPrediction(raw: RawPrediction, normalize: NormalizePathOptions, report: Tally): Prediction {
  const rank = (
    entries: readonly (string | SymbolRef)[],
    toId: (entry: string | SymbolRef) => { id: string; changed: boolean; empty: boolean },
  ) => {
    const ranked: string[] = [];
    const kept = new Set<string>();
    for (const entry of entries) {
      const { id, changed, empty } = toId(entry);
      if (changed) report.pathsNormalized += 1;
      if (empty) {
        report.emptyEntriesDropped += 1;
        continue;
      }
      if (kept.has(id)) {
        report.duplicatesRemoved += 1;
        continue;
      }
      kept.add(id);
      ranked.push(id);
    }
    return ranked;
  };
  const file = (entry: string | SymbolRef) => {
    const path = typeof entry === "string" ? entry : entry.path;
    const id = normalizeRepoPath(path, normalize);
    return { id, changed: id !== path, empty: id === "" };
  };
  const symbol = (entry: string | SymbolRef) => {
    if (typeof entry === "string") {
      const id = normalizeSymbolId(entry, normalize);
      const colon = id.indexOf(":");
      return { id, changed: id !== entry, empty: id === "" || colon === 0 };
    }
    const path = normalizeRepoPath(entry.path, normalize);
    return { id: `${path}:${entry.name}`, changed: path !== entry.path, empty: path === "" || entry.name === "" };
  };
  const locations: Location[] = [];
  for (const location of raw.locations ?? []) {
    const path = normalizeRepoPath(location.path, normalize);
    if (path !== location.path) report.pathsNormalized += 1;
    if (path === "") report.emptyEntriesDropped += 1;
    else locations.push({ ...location, path });
  }
  return {
    instanceId: raw.instanceId,
    files: rank(raw.files, file),
    locations,
    ...(raw.modules ? { modules: rank(raw.modules, symbol) } : {}),
    ...(raw.functions ? { functions: rank(raw.functions, symbol) } : {}),
    ...(raw.finding ? { finding: raw.finding } : {}),
    ...(raw.status !== undefined ? { status: raw.status } : {}),
    ...(raw.reason !== undefined ? { reason: raw.reason } : {}),
    ...(raw.sherlocLocations ? { sherlocLocations: raw.sherlocLocations.map((location) => ({ ...location })) } : {}),
  };
}
