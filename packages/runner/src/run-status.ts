import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import {
  hasResult,
  isFinalOutcome,
  keyHistories,
  readLedger,
  readRunManifest,
  type RunManifest,
  runLayout,
} from "@loclab/schemas";
import { processAlive } from "@loclab/tools";
import { parseRunSpec } from "./load-run-spec.js";
import { summarize } from "./run-summary.js";
import type { RunSummary } from "./run-events.js";
import { LOCK_FILE } from "./run-lock.js";
import { planRun } from "./run-plan.js";

export interface CellStatus {
  cell: string;
  keys: number;
  done: number;
  predicted: number;
  /** A repair run's keys whose final patch resolved its task. */
  resolved?: number;
  /** Final outcomes, counted. */
  outcomes: Record<string, number>;
  /** Attempts that did not close their key (infra_error, failed). */
  failedAttempts: number;
}

export interface EndpointUse {
  baseURL: string;
  attempts: number;
  infraErrors: number;
  retries: number;
  totalTokens: number;
}

/** A run folder's state, finished or not, read without changing anything. */
export interface RunStatus {
  dir: string;
  manifest: RunManifest;
  /** The runner working in the folder now, if any (from its lock). */
  runner: { pid: number; host: string; startedAt: string; alive: boolean | "unknown" } | null;
  summary: RunSummary;
  cells: CellStatus[];
  endpoints: EndpointUse[];
  /** Ledger lines that could not be read (a torn last line, from a kill, among them). */
  unreadableLines: string[];
  /** Keys with more than one final record: never written by the runner, so each is a defect to report. */
  duplicateFinals: number;
  sessions: number;
}

/**
 * The state of the run in `dir` (`loclab status`): its manifest, the ledger read as it is
 * (a torn last line is reported, not repaired: another runner may be writing), per cell
 * done / predicted / outcomes, per endpoint attempts, infrastructure errors, retries and
 * tokens, and whether a runner holds the folder.
 */
export async function readRunStatus(dir: string): Promise<RunStatus> {
  const manifest = await readRunManifest(dir);
  if (!manifest) throw new Error(`${dir}: no manifest.json: not a run folder`);
  const plan = await planRun(parseRunSpec(manifest.spec, { source: runLayout.manifest(dir) }));
  const ledger = await readLedger(runLayout.ledger(dir), { repair: false });
  const unreadable = ledger.skipped.map((bad) => bad.message);
  const histories = keyHistories(ledger.records);
  const cells = new Map<string, CellStatus>();
  for (const attempt of plan.attempts) {
    let cell = cells.get(attempt.cellLabel);
    if (!cell)
      cells.set(
        attempt.cellLabel,
        (cell = {
          cell: attempt.cellLabel,
          keys: 0,
          done: 0,
          predicted: 0,
          ...(plan.spec.kind === "repair" ? { resolved: 0 } : {}),
          outcomes: {},
          failedAttempts: 0,
        }),
      );
    cell.keys += 1;
    const history = histories.get(attempt.key);
    cell.failedAttempts +=
      history?.records.filter((record) => record !== history.final && !isFinalOutcome(record.outcome)).length ?? 0;
    if (history?.final) {
      cell.done += 1;
      if (hasResult(history.final)) cell.predicted += 1;
      if (history.final.repair?.resolved) cell.resolved = (cell.resolved ?? 0) + 1;
      cell.outcomes[history.final.outcome] = (cell.outcomes[history.final.outcome] ?? 0) + 1;
    }
  }
  const endpoints = new Map<string, EndpointUse>();
  for (const record of ledger.records) {
    if (!record.endpoint) continue;
    let use = endpoints.get(record.endpoint.baseURL);
    if (!use)
      endpoints.set(
        record.endpoint.baseURL,
        (use = { baseURL: record.endpoint.baseURL, attempts: 0, infraErrors: 0, retries: 0, totalTokens: 0 }),
      );
    use.attempts += 1;
    if (record.outcome === "infra_error") use.infraErrors += 1;
    use.retries += record.retries.length;
    use.totalTokens += record.usage.totalTokens ?? 0;
  }
  const lockPath = join(dir, LOCK_FILE);
  let runner: RunStatus["runner"] = null;
  if (existsSync(lockPath)) {
    try {
      const held = JSON.parse(readFileSync(lockPath, "utf8")) as { pid: number; host: string; startedAt: string };
      runner = {
        pid: held.pid,
        host: held.host,
        startedAt: held.startedAt,
        alive: held.host === hostname() ? processAlive(held.pid) : "unknown",
      };
    } catch {
      runner = { pid: -1, host: "?", startedAt: "?", alive: "unknown" };
    }
  }
  const sessionsPath = runLayout.sessions(dir);
  const sessions = existsSync(sessionsPath)
    ? readFileSync(sessionsPath, "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "").length
    : 0;
  return {
    dir,
    manifest,
    runner,
    summary: summarize(plan, histories, { attemptsThisSession: 0, failuresThisSession: 0, retriesThisSession: 0 }),
    cells: [...cells.values()],
    endpoints: [...endpoints.values()],
    unreadableLines: unreadable,
    duplicateFinals: [...histories.values()].reduce((sum, history) => sum + history.duplicateFinals, 0),
    sessions,
  };
}

/** `loclab status` as lines of text. Pure. */
export function formatRunStatus(status: RunStatus): string[] {
  const { summary } = status;
  const runner = status.runner
    ? status.runner.alive === true
      ? `running (pid ${status.runner.pid} on ${status.runner.host}, since ${status.runner.startedAt})`
      : status.runner.alive === false
        ? `not running (a stale lock of pid ${status.runner.pid} is left: the runner died; resume it)`
        : `locked by pid ${status.runner.pid} on ${status.runner.host} (another host: cannot check)`
    : summary.complete
      ? "finished"
      : "stopped (resume with loclab run --resume)";
  const lines = [
    `${status.dir}: ${runner}`,
    `benchmark ${status.manifest.benchmark}, ${status.manifest.instances.length} instances × ${status.manifest.cells.length} cells = ${summary.keys} attempt keys; ${summary.done} done, ${summary.resolved !== undefined ? `${summary.resolved} resolved` : `${summary.predicted} with a prediction`}; ${status.sessions} session(s) since ${status.manifest.startedAt}`,
  ];
  const width = Math.max(...status.cells.map((cell) => cell.cell.length));
  for (const cell of status.cells) {
    const outcomes = Object.entries(cell.outcomes)
      .map(([outcome, n]) => `${outcome} ${n}`)
      .join(", ");
    lines.push(
      `  ${cell.cell.padEnd(width)}  ${String(cell.done).padStart(4)}/${cell.keys} done  ${cell.resolved !== undefined ? `${cell.resolved} resolved` : `${cell.predicted} predicted`}  ${cell.failedAttempts} failed attempts${outcomes ? `  (${outcomes})` : ""}`,
    );
  }
  for (const use of status.endpoints)
    lines.push(
      `  ${use.baseURL}: ${use.attempts} attempts, ${use.infraErrors} infra errors, ${use.retries} retries, ${use.totalTokens} tokens`,
    );
  const missing = Object.entries(summary.noPrediction)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(", ");
  if (missing) lines.push(`no prediction: ${missing}`);
  for (const bad of status.unreadableLines) lines.push(`unreadable ledger line: ${bad}`);
  if (status.duplicateFinals > 0)
    lines.push(`DEFECT: ${status.duplicateFinals} attempt key(s) have more than one final record`);
  return lines;
}
