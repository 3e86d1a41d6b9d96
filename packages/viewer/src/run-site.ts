import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type ShuffleMapping, unmapPath } from "@loclab/controls";
import { goldFromPatch } from "@loclab/gold";
import type { InstanceReport } from "@loclab/grading";
import {
  parseRunSpec,
  planRun,
  type RunPlan,
  type RunSpec,
  readShuffledCopyMapping,
  scoreRun,
  shuffledCopyFolder,
} from "@loclab/runner";
import {
  cellLabel,
  type Instance,
  isFinalOutcome,
  readJsonl,
  readRunFolder,
  readRunScore,
  type RunRecord,
  type RunScoreFile,
  runLayout,
  TrajectoryHeaderSchema,
  TrajectoryStepSchema,
} from "@loclab/schemas";
import { acrossSeedsOfCells } from "./across-seeds.js";
import { cellPairs } from "./site-pairs.js";
import { siteSummary } from "./site-summary.js";
import { appendRow, emptyRows, tableCells } from "./site-table.js";
import type { SiteColumn, SiteSummary, TrajectoryView } from "./site-types.js";
import { buildTrajectoryView, type SourceStep } from "./trajectory-view.js";

/** What a site is made of: the summary, and each trajectory's view made when asked for. */
export interface SiteSource {
  summary: SiteSummary;
  trajectories: SiteTrajectory[];
}

export interface SiteTrajectory {
  id: number;
  /** The file the view is read from (to tell whether a rebuild must write it again). */
  file: string;
  view(): Promise<TrajectoryView>;
}

/** The instance table's columns for a run folder; filter expressions name them. */
export const RUN_COLUMNS: SiteColumn[] = [
  { name: "instance", type: "string", description: "the task's instance id" },
  { name: "repo", type: "string", description: "owner/name of the task's repository" },
  { name: "cell", type: "string", description: "seed/control[/arm[/framework]]" },
  { name: "seed", type: "number", description: "the sampling seed (null: none sent)" },
  {
    name: "control",
    type: "string",
    description: "plain, masked, shuffled or mismatch (the cell names its level or seed)",
  },
  { name: "arm", type: "string", description: "a repair run's arm" },
  { name: "model", type: "string", description: "the endpoint's model" },
  { name: "outcome", type: "string", description: "the final attempt's outcome (open: none final yet)" },
  { name: "exit", type: "string", description: "the trajectory's exit" },
  { name: "acc1", type: "number", description: "file acc@1 (1 when the first predicted file is a gold file)" },
  { name: "resolved", type: "number", description: "a repair's verdict (1 resolved, 0 not)" },
  { name: "turns", type: "number", description: "model turns" },
  { name: "tokens", type: "number", description: "total tokens" },
  { name: "seconds", type: "number", description: "wall time of the final attempt" },
  { name: "judge", type: "number", description: "the judge's composite score (1–5) of the finding handed on" },
  { name: "attempts", type: "number", description: "attempts at the key (retries after infrastructure errors)" },
];

export interface RunSiteOptions {
  /** Grows with each rebuild of a live site. */
  revision?: number;
}

/**
 * A run folder as a site: one row per instance × cell (the key's last attempt: its final one,
 * else the latest), the cells' metrics as `loclab run score` computes them (localization) or
 * the resolved rate (repair), each control's mean ± SD across seeds, every pair of cells on the
 * binary metric, the charts, the manifest. Reads the folder only; writes nothing to it.
 */
export async function runSite(path: string, options: RunSiteOptions = {}): Promise<SiteSource> {
  // Absolute, so that a report keeps its files whichever way the path was spelled (data/sources.json).
  const dir = resolve(path);
  const folder = await readRunFolder(dir);
  const problems: string[] = folder.unreadable.map((line) => `${line.file ?? "attempts.jsonl"}: ${line.message}`);
  let spec: RunSpec | undefined;
  let plan: RunPlan | undefined;
  try {
    spec = parseRunSpec(folder.manifest.spec, { source: join(dir, "manifest.json") });
    plan = await planRun(spec);
  } catch (error) {
    problems.push(`the run's benchmark could not be read, so no gold and no scores: ${(error as Error).message}`);
  }
  const repair = spec?.kind === "repair" || folder.records.some((record) => record.repair !== undefined);
  const instances = new Map<string, Instance>(
    (plan?.instances ?? []).map((instance) => [instance.instance_id, instance]),
  );

  const finals = lastRecordPerKey(folder.records);
  const acc1 = new Map<string, number>();
  let scoreCells: Pick<RunScoreFile, "cells" | "instanceIds" | "comparisons"> | undefined;
  if (!repair && plan) {
    try {
      // The run's own results when `loclab run score` wrote them after the ledger's last line;
      // scored here otherwise (its gold placed on the mirrors' files: most of the time on a big run).
      scoreCells = (await freshRunScore(dir)) ?? (await scoreRun(dir, { write: false, resamples: 1000 }));
      for (const cell of scoreCells.cells) {
        const values = cell.perInstance["file.acc@1"] ?? [];
        scoreCells.instanceIds.forEach((id, index) => {
          const value = values[index];
          if (typeof value === "number") acc1.set(`${cell.cell}\u0000${id}`, value);
        });
      }
    } catch (error) {
      problems.push(`the run could not be scored: ${(error as Error).message}`);
    }
  }

  const rows = emptyRows(RUN_COLUMNS);
  const trajectories: SiteTrajectory[] = [];
  for (const { record, attempts } of finals) {
    const cell = cellLabel(record);
    let t = -1;
    if (record.trajectory) {
      const id = (t = trajectories.length);
      const file = join(dir, record.trajectory);
      trajectories.push({
        id,
        file,
        view: () => runTrajectoryView({ dir, id, file, record, spec, instance: instances.get(record.instanceId) }),
      });
    }
    appendRow(rows, {
      instance: record.instanceId,
      repo: instances.get(record.instanceId)?.repo ?? null,
      cell,
      seed: record.seed,
      control: record.control.kind,
      arm: record.arm ?? null,
      model: record.endpoint?.model ?? null,
      outcome: isFinalOutcome(record.outcome) ? record.outcome : `open (${record.outcome})`,
      exit: record.exit,
      acc1: acc1.get(`${cell}\u0000${record.instanceId}`) ?? null,
      resolved: record.repair ? Number(record.repair.resolved) : null,
      turns: record.turns,
      tokens: record.usage.totalTokens ?? null,
      seconds: Math.round(record.wallMs / 10) / 100,
      judge: record.repair?.handOff?.judgement?.composite ?? null,
      attempts,
      t,
    });
  }

  const binary = repair ? "resolved" : "acc1";
  const cells = tableCells(rows, {
    averaged: [binary, "turns", "tokens", "seconds"],
    outcomeOf: (row) => String(rows.outcome![row]),
    counts: (outcome) => !outcome.startsWith("open"),
    partsOf: (cell, row) => ({
      seed: rows.seed![row] as number | null,
      // The cell's own control label (masked:modules, shuffled:7), not just the kind.
      control: cell.split("/")[1] ?? String(rows.control![row]),
      arm: rows.arm![row] as string | null,
      model: rows.model![row] as string | null,
    }),
    metricsOf: (cell) => scoreCells?.cells.find((score) => score.cell === cell)?.metrics,
  });
  const summary = await siteSummary({
    title: `${repair ? "repair" : "localization"} run ${dir}`,
    source: { kind: "run", dir, format: "loclab" },
    revision: options.revision,
    binary,
    columns: RUN_COLUMNS,
    rows,
    cells,
    acrossSeeds: acrossSeedsOfCells(cells),
    comparisons: scoreCells?.comparisons ?? [],
    pairs: cellPairs({ instance: rows.instance!, cell: rows.cell!, binary: rows[binary]! }),
    manifest: folder.manifest,
    problems,
  });
  return { summary, trajectories };
}

/** `results/score.json` when it was written after the ledger's last change (so it scores every record). */
async function freshRunScore(dir: string): Promise<RunScoreFile | undefined> {
  const ledger = statSync(runLayout.ledger(dir), { throwIfNoEntry: false });
  const score = statSync(runLayout.score(dir), { throwIfNoEntry: false });
  if (!ledger || !score || score.mtimeMs < ledger.mtimeMs) return undefined;
  return readRunScore(dir);
}

/** Each key's last attempt (its final one when it has one) with the number of attempts, in ledger order. */
function lastRecordPerKey(records: readonly RunRecord[]): { record: RunRecord; attempts: number }[] {
  const byKey = new Map<string, { record: RunRecord; attempts: number }>();
  for (const record of records) {
    const seen = byKey.get(record.key);
    if (!seen) byKey.set(record.key, { record, attempts: 1 });
    else {
      seen.attempts++;
      if (!isFinalOutcome(seen.record.outcome)) seen.record = record;
    }
  }
  return [...byKey.values()];
}

/**
 * A loclab trajectory's steps with what the harness added to each request (step 0's first user
 * message: the issue), which the analysis package's model leaves out. Errors name the file and line.
 */
export async function readLoclabSteps(file: string): Promise<SourceStep[]> {
  const [header, ...lines] = (await readJsonl(file)).records;
  if (!header || !TrajectoryHeaderSchema.safeParse(header.value).success)
    throw new Error(`${file}:1: not a loclab trajectory header`);
  return lines.map(({ line, value }) => {
    const checked = TrajectoryStepSchema.safeParse(value);
    if (!checked.success)
      throw new Error(`${file}:${line}: not a trajectory step: ${checked.error.issues[0]?.message}`);
    const step = checked.data;
    return {
      ...step,
      harnessMessages: (step.request?.add ?? []).flatMap((message) =>
        message.role === "user" ? [message.content] : [],
      ),
    } satisfies SourceStep;
  });
}

async function runTrajectoryView(input: {
  dir: string;
  id: number;
  file: string;
  record: RunRecord;
  spec: RunSpec | undefined;
  instance: Instance | undefined;
}): Promise<TrajectoryView> {
  const { record, instance, spec } = input;
  const steps = await readLoclabSteps(input.file);
  let gold: ReturnType<typeof goldFromPatch> | undefined;
  let overlayNote: string | null = null;
  if (!instance)
    overlayNote = "no gold overlay: the instance's gold patch is not known (the benchmark could not be read)";
  else
    try {
      gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id });
    } catch (error) {
      overlayNote = `no gold overlay: ${(error as Error).message}`;
    }
  let originalPathOf: ((path: string) => string | undefined) | undefined;
  if (record.control.kind === "shuffled" && instance && gold) {
    const mapping = spec ? await readShuffleMapping(spec.cacheDir, instance, record.control.seed) : undefined;
    if (mapping) originalPathOf = (path) => unmapPath(mapping, path);
    else {
      // Without the mapping every shuffled path would look like a miss: no overlay rather than a wrong one.
      gold = undefined;
      overlayNote = `no gold overlay: the shuffle mapping (seed ${record.control.seed}) is no longer in the workspace cache ${spec?.cacheDir ?? ""}`;
    }
  }
  return buildTrajectoryView({
    id: input.id,
    instanceId: record.instanceId,
    cell: cellLabel(record),
    format: "loclab",
    source: record.trajectory ?? input.file,
    exit: record.exit,
    outcome: record.outcome,
    error: record.error ?? null,
    model: record.endpoint?.model ?? null,
    steps,
    originalIssue: instance?.problem_statement,
    gold,
    originalPathOf,
    prediction: record.prediction,
    judge: record.repair?.handOff?.judgement ?? null,
    repair: record.repair ? await repairView(input.dir, record, instance) : null,
    overlayNote,
  });
}

/** The mapping a shuffled cell's copy was made with, from the workspace cache (absent once the cache is cleared). */
async function readShuffleMapping(
  cacheDir: string | undefined,
  instance: Instance,
  seed: number,
): Promise<ShuffleMapping | undefined> {
  if (!cacheDir) return undefined;
  return readShuffledCopyMapping(shuffledCopyFolder(cacheDir, instance.repo, instance.base_commit, seed));
}

async function repairView(
  dir: string,
  record: RunRecord,
  instance: Instance | undefined,
): Promise<TrajectoryView["repair"]> {
  const repair = record.repair!;
  const read = (path: string | null) =>
    path && existsSync(join(dir, path)) ? readFile(join(dir, path), "utf8") : Promise.resolve(null);
  const patch = await read(repair.patch.path);
  const report = await read(repair.evaluation.report);
  const tests: NonNullable<TrajectoryView["repair"]>["tests"] = [];
  if (report) {
    const parsed = JSON.parse(report) as Record<string, InstanceReport>;
    const status = parsed[record.instanceId]?.tests_status;
    for (const expected of ["FAIL_TO_PASS", "PASS_TO_PASS"] as const) {
      for (const name of status?.[expected].success ?? []) tests.push({ name, expected, passed: true });
      for (const name of status?.[expected].failure ?? []) tests.push({ name, expected, passed: false });
    }
  }
  return {
    resolved: repair.resolved,
    status: repair.evaluation.status,
    patch,
    goldPatch: instance?.patch ?? null,
    tests,
  };
}
