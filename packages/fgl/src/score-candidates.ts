import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import {
  drainOverPool,
  type EndpointPool,
  type EndpointPoolOptions,
  type EndpointSpec,
  openEndpointPool,
  type PoolEvent,
  probeEndpoint,
} from "@loclab/runner";
import { appendJsonl } from "@loclab/schemas";
import type { Candidate } from "./candidates.js";
import { CandidateScorer, type ScoringJob } from "./candidate-scorer.js";
import type { CodeSource } from "./code-source.js";
import type { ScoringEndpoint } from "./completions-client.js";
import { patchHunks } from "./extra-reads.js";
import { addedLineRanges } from "./fixer-prompt.js";
import { readScores } from "./read-scores.js";
import { isFinalScore, type ScoreRecord } from "./score-record.js";

/** λ_ctx per 1,000 tokens of ctx(z) and λ_req per extra read: FGL's published settings (docs/definitions.md §5). */
export const PUBLISHED_LAMBDAS = { lambdaCtx: 0.0097, lambdaReq: 0.017 } as const;

/** One task to score: its issue, its verified patch y*, its candidates and where their code comes from. */
export interface ScoringTask {
  task: string;
  repo: string;
  issue: string;
  patch: string;
  candidates: readonly Candidate[];
  code: CodeSource;
}

export interface ScoreCandidatesOptions {
  tasks: readonly ScoringTask[];
  endpoints: readonly ScoringEndpoint[];
  /** The scores file (JSONL): appended as scores come; lines already there with the same settings are not scored again. */
  out: string;
  /** Token budget of ctx(z); default 6,000. */
  budget?: number;
  lambdaCtx?: number;
  lambdaReq?: number;
  /** Prompt tokens in flight per endpoint at once (the batch budget); default 32,768. */
  batchTokens?: number;
  /** Tries per request on transport faults and unparsable answers (the one client's policy); default 4. */
  attempts?: number;
  /** Wait before the first retry, doubling (with the policy's jitter, cap and Retry-After); default 500 ms. */
  retryDelayMs?: number;
  /**
   * Runs of one candidate in a session when its calls fail on transport (each run with the
   * client's own retries): each goes to another endpoint when one is free; default 4, as a run's
   * `retry.attemptsPerKey`.
   */
  attemptsPerCandidate?: number;
  /** The endpoint pool's breaker and probing; the run spec's defaults otherwise (3 faults, 2 s, 10 s, 30 min). */
  pool?: Partial<Pick<EndpointPoolOptions, "breakerFailures" | "probeMs" | "healthMs" | "pauseMs">>;
  /** Endpoints going down and up, the pool pausing. */
  onPoolEvent?: (event: PoolEvent) => void;
  onProgress?: (progress: ScoringProgress) => void;
  /** Stops taking candidates; those in flight finish and are written. */
  signal?: AbortSignal;
}

export interface ScoringProgress {
  done: number;
  total: number;
  scored: number;
  failed: number;
  /** Already in the scores file (resumed). */
  skipped: number;
  last?: ScoreRecord;
}

export interface ScoringSummary extends ScoringProgress {
  seconds: number;
  /** Seconds spent waiting on completions requests and on /tokenize, summed over requests. */
  requestSeconds: number;
  tokenizeSeconds: number;
  /** Prompt tokens sent for scoring. */
  promptTokens: number;
  /** Candidates whose prompt was the same as an earlier one's of this run (scored once, numbers shared). */
  reusedPrompts: number;
  records: ScoreRecord[];
  /** Set when every endpoint stayed down for the pool's pause: why. The candidates left are not in the file; run again to score them. */
  unavailable?: string;
}

/**
 * Scores every candidate of every task with a frozen fixer (docs/definitions.md §5):
 * s_k = mean log p(y+ | x, ctx(z_k)) − λ_ctx·tok(z_k)/1000 − λ_req·|a_k|, one echo forward pass
 * per candidate on a completions endpoint. The work runs over the runner's endpoint pool and
 * dispatch loop (`drainOverPool`: least-loaded endpoint, breaker, probes, pause), each endpoint
 * with up to `maxConcurrency` candidates and `batchTokens` prompt tokens in flight, and is
 * appended to `out` line by line as it comes, so a killed run resumes where it stopped (a
 * candidate whose settings digest is settled in the file is skipped; failed ones are tried
 * again). Candidates whose prompts come out the same (the budget cut them before where they
 * differ) are sent once. A candidate that cannot be rendered or scored gets an error line naming
 * it; a task whose patch adds no line gets one error line, once; the rest goes on.
 */
export async function scoreCandidates(options: ScoreCandidatesOptions): Promise<ScoringSummary> {
  if (options.endpoints.length === 0) throw new Error("scoreCandidates: no endpoint given");
  const started = performance.now();
  await mkdir(dirname(options.out), { recursive: true });
  const settled = new Set(
    (await readScores(options.out, { repair: true })).filter(isFinalScore).map((r) => r.settingsDigest),
  );
  const { pool, windows } = await openPool(options);
  try {
    const log = scoresLog(options);
    const settings = {
      budget: options.budget ?? 6000,
      lambdaCtx: options.lambdaCtx ?? PUBLISHED_LAMBDAS.lambdaCtx,
      lambdaReq: options.lambdaReq ?? PUBLISHED_LAMBDAS.lambdaReq,
    };
    const jobs = await planJobs(options, settings, settled, log);
    const scorer = new CandidateScorer({
      pool,
      windows,
      ...settings,
      batchTokens: options.batchTokens ?? 32_768,
      attemptsPerCandidate: options.attemptsPerCandidate ?? 4,
      // The one client's policy; the options keep their older names (tries in all, first wait).
      retry: {
        ...(options.attempts !== undefined ? { maxRetries: options.attempts - 1 } : {}),
        ...(options.retryDelayMs !== undefined ? { backoffMs: options.retryDelayMs } : {}),
      },
      write: log.write,
    });
    const drained = await drainOverPool({
      pool,
      jobs,
      run: (job, lease, tries) => scorer.run(job, lease, tries),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return {
      ...log.progress,
      seconds: (performance.now() - started) / 1000,
      ...scorer.totals,
      records: log.records,
      ...(drained.unavailable !== undefined ? { unavailable: drained.unavailable } : {}),
    };
  } finally {
    pool.stop();
  }
}

/** The endpoints as the runner's pool, checked before any work; each one's window, or ∞. */
async function openPool(options: ScoreCandidatesOptions): Promise<{ pool: EndpointPool; windows: number[] }> {
  const specs: EndpointSpec[] = options.endpoints.map((endpoint) => ({
    baseURL: endpoint.baseURL,
    model: endpoint.model,
    maxConcurrency: Math.max(1, endpoint.maxConcurrency ?? 1),
    weight: 1,
    ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
  }));
  const { pool, windows } = await openEndpointPool(specs, {
    breakerFailures: 3,
    probeMs: 2_000,
    healthMs: 10_000,
    pauseMs: 1_800_000,
    ...options.pool,
    // A server busy with long echo passes may be slow to list its models.
    probe: (endpoint) => probeEndpoint(endpoint, { timeoutMs: 30_000 }),
    ...(options.onPoolEvent ? { onEvent: options.onPoolEvent } : {}),
  });
  return { pool, windows: windows.map((window) => window ?? Number.POSITIVE_INFINITY) };
}

/** The scores file as it grows, and the progress it shows. */
function scoresLog(options: ScoreCandidatesOptions) {
  const records: ScoreRecord[] = [];
  const progress: ScoringProgress = { done: 0, total: 0, scored: 0, failed: 0, skipped: 0 };
  const write = async (record: ScoreRecord) => {
    // Serialized per file: concurrent candidates never interleave their lines.
    await appendJsonl(options.out, record);
    records.push(record);
    progress.done += 1;
    if ("score" in record) progress.scored += 1;
    else progress.failed += 1;
    options.onProgress?.({ ...progress, last: record });
  };
  return { records, progress, write };
}

/**
 * The candidates still open, in task order; a task whose patch adds no line gets its one
 * `patch` line (unless the file has it already).
 */
async function planJobs(
  options: ScoreCandidatesOptions,
  settings: { budget: number; lambdaCtx: number; lambdaReq: number },
  settled: ReadonlySet<string>,
  log: ReturnType<typeof scoresLog>,
): Promise<ScoringJob[]> {
  const { budget, lambdaCtx, lambdaReq } = settings;
  // As a run's attempt keys leave out the endpoints, so does the digest: the same model on one
  // endpoint or on two gives the same digests (one endpoint gives the JSON of older files).
  const models = [...new Set(options.endpoints.map((endpoint) => endpoint.model))].sort();
  const { progress } = log;
  /** Counted, and true, when the file already settles this digest. */
  const skipped = (settingsDigest: string) => {
    progress.total += 1;
    if (!settled.has(settingsDigest)) return false;
    progress.skipped += 1;
    progress.done += 1;
    return true;
  };
  const jobs: ScoringJob[] = [];
  for (const task of options.tasks) {
    const common = { patch: task.patch, issue: task.issue, repo: task.repo, budget, lambdaCtx, lambdaReq };
    if (addedLineRanges(task.patch).length === 0) {
      const settingsDigest = digest(common);
      if (!skipped(settingsDigest))
        await log.write({
          schemaVersion: 1,
          task: task.task,
          candidate: null,
          teacher: false,
          error: `${task.task}: the verified patch adds no line, so y+ is empty and there is nothing to score`,
          errorKind: "patch",
          settingsDigest,
          scoredAt: new Date().toISOString(),
        });
      continue;
    }
    const hunks = patchHunks(task.patch, task.task);
    for (const candidate of task.candidates) {
      const settingsDigest = digest({ ...common, locations: candidate.locations, models });
      if (!skipped(settingsDigest)) jobs.push({ task, hunks, candidate, settingsDigest });
    }
  }
  options.onProgress?.({ ...progress });
  return jobs;
}

function digest(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 16);
}
