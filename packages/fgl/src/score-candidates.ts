import { createHash } from "node:crypto";
import { appendFile, mkdir, readFile, truncate } from "node:fs/promises";
import { dirname } from "node:path";
import type { GoldSpan } from "@loclab/gold";
import { ModelAnswerError, ModelCallError, urlWithoutCredentials } from "@loclab/openai-http";
import { probeEndpoint } from "@loclab/runner";
import type { Candidate } from "./candidates.js";
import type { CodeSource } from "./code-source.js";
import { addedLineTokens } from "./added-line-tokens.js";
import { countTokens, type EchoedPrompt, echoPrompt, type ScoringEndpoint } from "./completions-client.js";
import { extraReads, patchHunks } from "./extra-reads.js";
import { addedLineRanges, type FixerPrompt, fixerPrompt } from "./fixer-prompt.js";
import { RenderError, renderContext } from "./render-context.js";
import {
  type FailedCandidate,
  isScored,
  type ScoreRecord,
  ScoreRecordSchema,
  type ScoredCandidate,
} from "./score-record.js";

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
  onProgress?: (progress: ScoringProgress) => void;
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
}

/**
 * Reads a scores file; a line that is not a score record is an error naming the file and line.
 * A half-written last line (a crash mid-write) is not an error: it is left out, and with
 * `repair` cut off the file so that the next append starts a line of its own.
 */
export async function readScores(path: string, options: { repair?: boolean } = {}): Promise<ScoreRecord[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const records: ScoreRecord[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    // A crash can leave the last line half-written: it is scored again, not an error.
    if (i === lines.length - 1 && !text.endsWith("\n")) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw new Error(`${path}:${i + 1}: not JSON`);
    }
    const parsed = ScoreRecordSchema.safeParse(json);
    if (!parsed.success)
      throw new Error(
        `${path}:${i + 1}: not a score record: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`,
      );
    records.push(parsed.data);
  });
  if (options.repair && text !== "" && !text.endsWith("\n"))
    await truncate(path, Buffer.byteLength(text.slice(0, text.lastIndexOf("\n") + 1)));
  return records;
}

function digest(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 16);
}

/**
 * Scores every candidate of every task with a frozen fixer (docs/definitions.md §5):
 * s_k = mean log p(y+ | x, ctx(z_k)) − λ_ctx·tok(z_k)/1000 − λ_req·|a_k|, one echo forward pass
 * per candidate on a completions endpoint. Work is spread over the endpoints (each up to its
 * `maxConcurrency` requests and `batchTokens` prompt tokens in flight), retried on
 * infrastructure errors, and appended to `out` line by line as it comes, so a killed run
 * resumes where it stopped (a candidate whose settings digest is already there is skipped;
 * failed ones are tried again). Candidates whose prompts come out the same (the budget cut them
 * before where they differ) are sent once. A candidate that cannot be rendered or scored gets an error
 * line naming it; a task whose patch adds no line gets one error line; the rest goes on.
 */
export async function scoreCandidates(options: ScoreCandidatesOptions): Promise<ScoringSummary> {
  if (options.endpoints.length === 0) throw new Error("scoreCandidates: no endpoint given");
  const started = performance.now();
  const budget = options.budget ?? 6000;
  const lambdaCtx = options.lambdaCtx ?? PUBLISHED_LAMBDAS.lambdaCtx;
  const lambdaReq = options.lambdaReq ?? PUBLISHED_LAMBDAS.lambdaReq;
  const batchTokens = options.batchTokens ?? 32_768;
  await mkdir(dirname(options.out), { recursive: true });
  const done = new Set((await readScores(options.out, { repair: true })).filter(isScored).map((r) => r.settingsDigest));
  const windows = await Promise.all(options.endpoints.map((endpoint) => modelWindow(endpoint)));
  const records: ScoreRecord[] = [];
  const progress: ScoringProgress = { done: 0, total: 0, scored: 0, failed: 0, skipped: 0 };
  let requestSeconds = 0;
  let tokenizeSeconds = 0;
  let promptTokens = 0;
  const write = async (record: ScoreRecord) => {
    await appendFile(options.out, `${JSON.stringify(record)}\n`);
    records.push(record);
    progress.done += 1;
    if ("score" in record) progress.scored += 1;
    else progress.failed += 1;
    options.onProgress?.({ ...progress, last: record });
  };

  type Job = { task: ScoringTask; hunks: GoldSpan[][]; candidate: Candidate; settingsDigest: string };
  const jobs: Job[] = [];
  for (const task of options.tasks) {
    const common = { patch: task.patch, issue: task.issue, repo: task.repo, budget, lambdaCtx, lambdaReq };
    if (addedLineRanges(task.patch).length === 0) {
      progress.total += 1;
      await write({
        schemaVersion: 1,
        task: task.task,
        candidate: null,
        teacher: false,
        error: `${task.task}: the verified patch adds no line, so y+ is empty and there is nothing to score`,
        errorKind: "patch",
        settingsDigest: digest(common),
        scoredAt: new Date().toISOString(),
      });
      continue;
    }
    const hunks = patchHunks(task.patch, task.task);
    for (const candidate of task.candidates) {
      const settingsDigest = digest({
        ...common,
        locations: candidate.locations,
        models: options.endpoints.map((e) => e.model),
      });
      progress.total += 1;
      if (done.has(settingsDigest)) {
        progress.skipped += 1;
        progress.done += 1;
        continue;
      }
      jobs.push({ task, hunks, candidate, settingsDigest });
    }
  }
  options.onProgress?.({ ...progress });

  const inFlightTokens = options.endpoints.map(() => 0);
  const waiters: Array<Array<() => void>> = options.endpoints.map(() => []);
  const acquire = async (e: number, tokens: number) => {
    while (inFlightTokens[e]! > 0 && inFlightTokens[e]! + tokens > batchTokens)
      await new Promise<void>((resolve) => waiters[e]!.push(resolve));
    inFlightTokens[e]! += tokens;
  };
  const release = (e: number, tokens: number) => {
    inFlightTokens[e]! -= tokens;
    for (const wake of waiters[e]!.splice(0)) wake();
  };

  const samePrompt = new Map<string, Promise<Likelihood>>();
  let reusedPrompts = 0;
  let next = 0;
  // The one client's policy; the options keep their older names (tries in all, first wait).
  const retry = {
    ...(options.attempts !== undefined ? { maxRetries: options.attempts - 1 } : {}),
    ...(options.retryDelayMs !== undefined ? { backoffMs: options.retryDelayMs } : {}),
  };
  const worker = async (e: number) => {
    const endpoint = options.endpoints[e]!;
    while (next < jobs.length && !options.signal?.aborted) {
      const { task, hunks, candidate, settingsDigest } = jobs[next++]!;
      const fail = (error: string, errorKind: FailedCandidate["errorKind"]): FailedCandidate => ({
        schemaVersion: 1,
        task: task.task,
        candidate: candidate.id,
        teacher: candidate.teacher,
        error: `${task.task} / ${candidate.id}: ${error}`,
        errorKind,
        settingsDigest,
        scoredAt: new Date().toISOString(),
      });
      try {
        const tokenizeStart = performance.now();
        const count = (text: string) => countTokens(endpoint, text, { retry });
        const context = await renderContext(candidate.locations, task.code, { budget, countTokens: count });
        const prompt = fixerPrompt({ repo: task.repo, issue: task.issue, context: context.text, patch: task.patch });
        const promptCount = await count(prompt.text);
        const tokenizeTime = (performance.now() - tokenizeStart) / 1000;
        tokenizeSeconds += tokenizeTime;
        if (promptCount + 1 > windows[e]!) {
          await write(
            fail(
              `the prompt is ${promptCount} tokens, more than the server's window of ${windows[e]} (context overflow)`,
              "overflow",
            ),
          );
          continue;
        }
        // Two candidates that render the same ctx (the budget cut both before where they differ)
        // send the same prompt: it is scored once, and both get its numbers.
        const promptKey = digest([endpoint.model, prompt.text]);
        let pending = samePrompt.get(promptKey);
        const requestStart = performance.now();
        if (!pending) {
          pending = (async () => {
            await acquire(e, promptCount);
            try {
              const echoed = await echoPrompt(endpoint, prompt.text, { retry });
              promptTokens += promptCount;
              return likelihoodOfAddedLines(echoed, prompt);
            } finally {
              release(e, promptCount);
            }
          })();
          samePrompt.set(promptKey, pending);
        } else reusedPrompts += 1;
        const { meanLogprob, addedTokens, startsBefore, runsPast } = await pending;
        const requestTime = (performance.now() - requestStart) / 1000;
        requestSeconds += requestTime;
        const reads = extraReads(hunks, context.shown);
        const score = meanLogprob - (lambdaCtx * context.tokens) / 1000 - lambdaReq * reads.needed;
        await write({
          schemaVersion: 1,
          task: task.task,
          candidate: candidate.id,
          teacher: candidate.teacher,
          score,
          meanLogprob,
          addedTokens,
          ctxTokens: context.tokens,
          extraReads: reads.needed,
          promptTokens: promptCount,
          startsBefore,
          runsPast,
          shown: context.shown.length,
          omitted: context.omitted.length,
          cut: context.cut !== undefined,
          lambdaCtx,
          lambdaReq,
          settingsDigest,
          endpoint: urlWithoutCredentials(endpoint.baseURL),
          model: endpoint.model,
          requestSeconds: requestTime,
          tokenizeSeconds: tokenizeTime,
          scoredAt: new Date().toISOString(),
        } satisfies ScoredCandidate);
      } catch (error) {
        if (error instanceof RenderError) await write(fail(error.message, "render"));
        // The server's state (a transport fault after every retry) may change; a refused request or
        // an unusable answer will not, and is recorded as a request error.
        else if (error instanceof ModelCallError)
          await write(fail(error.message, error.kind === "transport" ? "infrastructure" : "request"));
        else throw error;
      }
    }
  };
  const workers: Array<Promise<void>> = [];
  options.endpoints.forEach((endpoint, e) => {
    for (let slot = 0; slot < Math.max(1, endpoint.maxConcurrency ?? 1); slot++) workers.push(worker(e));
  });
  await Promise.all(workers);
  return {
    ...progress,
    seconds: (performance.now() - started) / 1000,
    requestSeconds,
    tokenizeSeconds,
    promptTokens,
    reusedPrompts,
    records,
  };
}

/** What one echo pass says about y+: its mean log p and how its tokens lined up with the added lines. */
interface Likelihood {
  meanLogprob: number;
  addedTokens: number;
  startsBefore: number;
  runsPast: number;
}

function likelihoodOfAddedLines(echoed: EchoedPrompt, prompt: FixerPrompt): Likelihood {
  const shift = echoed.text.indexOf(prompt.text);
  if (shift < 0)
    throw new ModelAnswerError({
      message: "the echoed text does not contain the prompt as sent (the server's detokenization changes it)",
      retryable: false,
    });
  const tokens = addedLineTokens(echoed.offsets, prompt.added, { shift, promptEnd: prompt.text.length });
  const logprobs = tokens.indices.map((i) => echoed.logprobs[i]);
  if (logprobs.length === 0 || logprobs.some((l) => l === null || l === undefined))
    throw new ModelAnswerError({ message: "no log-probability for some of y+'s tokens", retryable: false });
  const meanLogprob = (logprobs as number[]).reduce((a, b) => a + b, 0) / logprobs.length;
  return { meanLogprob, addedTokens: logprobs.length, startsBefore: tokens.startsBefore, runsPast: tokens.runsPast };
}

/**
 * The endpoint's window (`max_model_len` of `/v1/models`), from the runner's readiness probe
 * (the same check a run makes): a dead endpoint, or one that does not serve the model, fails
 * here, before any work.
 */
async function modelWindow(endpoint: ScoringEndpoint): Promise<number> {
  const probe = await probeEndpoint(endpoint, { timeoutMs: 30_000 });
  if (!probe.ok)
    throw new Error(`${urlWithoutCredentials(endpoint.baseURL)}: not answering (${probe.problem}); is the server up?`);
  const models = (probe.models as { data?: Array<{ id?: string; max_model_len?: number }> } | undefined)?.data ?? [];
  return models.find((m) => m.id === endpoint.model)?.max_model_len ?? Number.POSITIVE_INFINITY;
}
