import type { RetryRecord } from "@loclab/openai-http";
import { hasResult, isFinalOutcome, type RunAttemptOutcome, type RunRecord } from "@loclab/schemas";
import type { EndpointStatus, PoolEvent } from "./endpoint-pool.js";

/** Why a run stopped before every key was done. */
export type RunStopReason = "run-wall-budget" | "run-token-budget" | "endpoints-down" | "interrupted";

/** What a run ended with: for the terminal, a notebook, and the exit code. */
export interface RunSummary {
  dir: string;
  /** Attempt keys in the plan (instances × cells). */
  keys: number;
  /** Keys with a final outcome (model-caused: see `isFinalOutcome`). */
  done: number;
  /** Keys with a result: a prediction (localization) or an evaluated final patch (repair). */
  predicted: number;
  /** A repair run's keys whose final patch resolved its task. */
  resolved?: number;
  /** Final outcomes, counted. */
  outcomes: Partial<Record<RunAttemptOutcome, number>>;
  /** Keys without a prediction, by reason: a final outcome (`budget_exhausted`, …) or, for open keys, `not started`, `infra_error: …`, `failed: …`. */
  noPrediction: Record<string, number>;
  /** Attempts made in this session, and how many ended in infrastructure or harness failure. */
  attemptsThisSession: number;
  failuresThisSession: number;
  /** Transport faults the clients retried in this session. */
  retriesThisSession: number;
  stoppedBy?: RunStopReason;
  /** Every key has a final outcome. */
  complete: boolean;
}

/** What a run tells its observers, in order. */
export type RunEvent =
  | {
      type: "start";
      dir: string;
      resumed: boolean;
      keys: number;
      done: number;
      cells: { cell: string; keys: number; done: number; predicted: number }[];
      endpoints: EndpointStatus[];
    }
  | { type: "note"; message: string }
  | { type: "attempt-start"; key: string; cell: string; instanceId: string; attempt: number; endpoint: number }
  | { type: "attempt-end"; cell: string; record: RunRecord; endpoint: number | null; requeued: boolean }
  | { type: "retry"; cell: string; instanceId: string; endpoint: number; retry: RetryRecord }
  | PoolEvent
  | { type: "stopping"; reason: RunStopReason; detail: string }
  | { type: "end"; summary: RunSummary };

/** One cell's counts, live. */
export interface CellProgress {
  cell: string;
  keys: number;
  done: number;
  predicted: number;
  running: number;
  /** Attempts that ended in infrastructure or harness failure (their keys run again). */
  failed: number;
  retries: number;
}

/** One endpoint's throughput, live. */
export interface EndpointProgress {
  index: number;
  baseURL: string;
  health: "up" | "down";
  inFlight: number;
  attempts: number;
  turns: number;
  completionTokens: number;
  /** Completion tokens per second of this session's wall time. */
  tokensPerSecond: number;
}

export interface ProgressSnapshot {
  elapsedMs: number;
  keys: number;
  done: number;
  running: number;
  failed: number;
  retries: number;
  paused: boolean;
  /** Keys left ÷ this session's rate of finishing keys; undefined before the first. */
  etaMs?: number;
  cells: CellProgress[];
  endpoints: EndpointProgress[];
}

/**
 * Folds run events into the live counts a progress display shows (per cell: done / running /
 * failed / retried; per endpoint: throughput and tokens/s; an ETA). Pure apart from the clock
 * it is given.
 */
export class RunProgress {
  private readonly cells = new Map<string, CellProgress>();
  private endpoints: EndpointProgress[] = [];
  private startedMs = 0;
  private doneAtStart = 0;
  private paused = false;

  constructor(private readonly now: () => number = Date.now) {}

  apply(event: RunEvent): void {
    switch (event.type) {
      case "start": {
        this.startedMs = this.now();
        this.doneAtStart = event.done;
        for (const count of event.cells) this.cells.set(count.cell, { ...count, running: 0, failed: 0, retries: 0 });
        this.endpoints = event.endpoints.map((endpoint) => ({
          index: endpoint.index,
          baseURL: endpoint.baseURL,
          health: endpoint.health,
          inFlight: 0,
          attempts: 0,
          turns: 0,
          completionTokens: 0,
          tokensPerSecond: 0,
        }));
        return;
      }
      case "attempt-start": {
        const cell = this.cells.get(event.cell);
        if (cell) cell.running += 1;
        const endpoint = this.endpoints[event.endpoint];
        if (endpoint) endpoint.inFlight += 1;
        return;
      }
      case "attempt-end": {
        const cell = this.cells.get(event.cell);
        if (cell) {
          cell.running -= 1;
          if (event.requeued || !isFinalOutcome(event.record.outcome)) cell.failed += 1;
          else {
            cell.done += 1;
            if (hasResult(event.record)) cell.predicted += 1;
          }
        }
        const endpoint = event.endpoint === null ? undefined : this.endpoints[event.endpoint];
        if (endpoint) {
          endpoint.inFlight -= 1;
          endpoint.attempts += 1;
          endpoint.turns += event.record.turns;
          endpoint.completionTokens += event.record.usage.completionTokens ?? 0;
        }
        return;
      }
      case "retry": {
        const cell = this.cells.get(event.cell);
        if (cell) cell.retries += 1;
        return;
      }
      case "endpoint-down":
      case "endpoint-up": {
        const endpoint = this.endpoints[event.index];
        if (endpoint) endpoint.health = event.type === "endpoint-up" ? "up" : "down";
        return;
      }
      case "paused":
      case "unpaused":
        this.paused = event.type === "paused";
        return;
      default:
        return;
    }
  }

  snapshot(): ProgressSnapshot {
    const elapsedMs = this.now() - this.startedMs;
    const cells = [...this.cells.values()].map((cell) => ({ ...cell }));
    const keys = cells.reduce((sum, cell) => sum + cell.keys, 0);
    const done = cells.reduce((sum, cell) => sum + cell.done, 0);
    const finishedNow = done - this.doneAtStart;
    const seconds = Math.max(elapsedMs / 1000, 1e-3);
    const snapshot: ProgressSnapshot = {
      elapsedMs,
      keys,
      done,
      running: cells.reduce((sum, cell) => sum + cell.running, 0),
      failed: cells.reduce((sum, cell) => sum + cell.failed, 0),
      retries: cells.reduce((sum, cell) => sum + cell.retries, 0),
      paused: this.paused,
      cells,
      endpoints: this.endpoints.map((endpoint) => ({
        ...endpoint,
        tokensPerSecond: endpoint.completionTokens / seconds,
      })),
    };
    if (finishedNow > 0) snapshot.etaMs = ((keys - done) * elapsedMs) / finishedNow;
    return snapshot;
  }
}
