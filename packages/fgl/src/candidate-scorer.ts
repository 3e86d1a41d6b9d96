import { createHash } from "node:crypto";
import type { GoldSpan } from "@loclab/gold";
import {
  ModelAnswerError,
  ModelCallError,
  ModelTransportError,
  type RetryPolicy,
  urlWithoutCredentials,
} from "@loclab/openai-http";
import { type EndpointLease, type EndpointPool, type LeaseReport, leaseReporter } from "@loclab/runner";
import { addedLineTokens } from "./added-line-tokens.js";
import type { Candidate } from "./candidates.js";
import type { CodeSource } from "./code-source.js";
import { countTokens, type EchoedPrompt, echoPrompt, type ScoringCallOptions } from "./completions-client.js";
import { extraReads } from "./extra-reads.js";
import { type FixerPrompt, fixerPrompt } from "./fixer-prompt.js";
import { RenderError, renderContext } from "./render-context.js";
import type { FailedCandidate, ScoreRecord, ScoredCandidate } from "./score-record.js";

/** One candidate to score, with what its score depends on. */
export interface ScoringJob {
  task: { task: string; repo: string; issue: string; patch: string; code: CodeSource };
  hunks: GoldSpan[][];
  candidate: Candidate;
  settingsDigest: string;
}

export interface CandidateScorerOptions {
  pool: EndpointPool;
  /** Per endpoint (the pool's index), its window in tokens (`max_model_len`), or ∞. */
  windows: readonly number[];
  budget: number;
  lambdaCtx: number;
  lambdaReq: number;
  /** Prompt tokens in flight per endpoint at once. */
  batchTokens: number;
  /** Runs of one candidate in this session before a transport failure is written down. */
  attemptsPerCandidate: number;
  retry: Partial<RetryPolicy>;
  /** Appends a line to the scores file. */
  write: (record: ScoreRecord) => Promise<void>;
}

/** What one echo pass says about y+: its mean log p and how its tokens lined up with the added lines. */
interface Likelihood {
  meanLogprob: number;
  addedTokens: number;
  /** Each of y+'s tokens: its added line, its text (cut at the line's end), its log p. */
  tokens: [number, string, number][];
  startsBefore: number;
  runsPast: number;
}

/**
 * Scores candidates on the leases the dispatch loop gives it (docs/definitions.md §5): ctx(z)
 * rendered within the budget by the server's own tokenizer, one echo pass, the score written.
 * Every retry of the model client counts as a fault of the lease's endpoint (the pool's
 * breaker), every answer as a success. A candidate whose calls failed on transport goes back
 * to the pool (another endpoint when one is free) until `attemptsPerCandidate`, then is written
 * as `infrastructure`; a refused request or an unusable answer is written as `request`.
 */
export class CandidateScorer {
  /** Seconds waiting on completions requests and on /tokenize, summed over requests; prompt tokens sent. */
  readonly totals = { requestSeconds: 0, tokenizeSeconds: 0, promptTokens: 0, reusedPrompts: 0 };
  private readonly inFlightTokens: number[];
  private readonly tokenWaiters: Array<Array<() => void>>;
  /** Two candidates whose ctx comes out the same send the same prompt: it is scored once. */
  private readonly samePrompt = new Map<string, Promise<Likelihood>>();

  constructor(private readonly options: CandidateScorerOptions) {
    this.inFlightTokens = options.windows.map(() => 0);
    this.tokenWaiters = options.windows.map(() => []);
  }

  /** One candidate on one lease; never throws for a failure of the candidate (only for a bug). */
  async run(job: ScoringJob, lease: EndpointLease, tries: number): Promise<"done" | "retry"> {
    const { write } = this.options;
    const report = leaseReporter(this.options.pool, lease.index);
    try {
      await write(await this.score(job, lease, report));
      report.answered();
      return "done";
    } catch (error) {
      report.failed(error);
      if (error instanceof RenderError) await write(failed(job, error.message, "render"));
      else if (error instanceof ModelTransportError) {
        if (tries < this.options.attemptsPerCandidate) return "retry";
        await write(failed(job, error.message, "infrastructure"));
      }
      // A refused request or an answer that cannot be used will not change by asking another server.
      else if (error instanceof ModelCallError) await write(failed(job, error.message, "request"));
      else throw error;
      return "done";
    }
  }

  private async score(job: ScoringJob, lease: EndpointLease, report: LeaseReport): Promise<ScoreRecord> {
    const { task, candidate } = job;
    const { lambdaCtx, lambdaReq } = this.options;
    const window = this.options.windows[lease.index] ?? Number.POSITIVE_INFINITY;
    const calls = { retry: this.options.retry, onProgress: report.onProgress };
    const tokenizeStart = performance.now();
    const count = (text: string) => countTokens(lease.endpoint, text, calls);
    const context = await renderContext(candidate.locations, task.code, {
      budget: this.options.budget,
      countTokens: count,
    });
    const prompt = fixerPrompt({ repo: task.repo, issue: task.issue, context: context.text, patch: task.patch });
    const promptCount = await count(prompt.text);
    const tokenizeSeconds = (performance.now() - tokenizeStart) / 1000;
    this.totals.tokenizeSeconds += tokenizeSeconds;
    if (promptCount + 1 > window)
      return failed(
        job,
        `the prompt is ${promptCount} tokens, more than the server's window of ${window} (context overflow)`,
        "overflow",
      );
    const requestStart = performance.now();
    const { meanLogprob, addedTokens, tokens, startsBefore, runsPast } = await this.likelihood(
      lease,
      prompt,
      promptCount,
      calls,
    );
    const requestSeconds = (performance.now() - requestStart) / 1000;
    this.totals.requestSeconds += requestSeconds;
    const reads = extraReads(job.hunks, context.shown);
    return {
      schemaVersion: 1,
      task: task.task,
      candidate: candidate.id,
      teacher: candidate.teacher,
      score: meanLogprob - (lambdaCtx * context.tokens) / 1000 - lambdaReq * reads.needed,
      meanLogprob,
      addedTokens,
      tokens,
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
      settingsDigest: job.settingsDigest,
      endpoint: urlWithoutCredentials(lease.endpoint.baseURL),
      model: lease.endpoint.model,
      requestSeconds,
      tokenizeSeconds,
      scoredAt: new Date().toISOString(),
    } satisfies ScoredCandidate;
  }

  /** The echo pass for a prompt, shared with any candidate that sent the same one (a failed one is not kept). */
  private likelihood(
    lease: EndpointLease,
    prompt: FixerPrompt,
    promptCount: number,
    calls: ScoringCallOptions,
  ): Promise<Likelihood> {
    const key = createHash("sha256")
      .update(JSON.stringify([lease.endpoint.model, prompt.text]))
      .digest("hex");
    const shared = this.samePrompt.get(key);
    if (shared) {
      this.totals.reusedPrompts += 1;
      return shared;
    }
    const pending = (async () => {
      await this.acquireTokens(lease.index, promptCount);
      try {
        const echoed = await echoPrompt(lease.endpoint, prompt.text, calls);
        this.totals.promptTokens += promptCount;
        return likelihoodOfAddedLines(echoed, prompt);
      } finally {
        this.releaseTokens(lease.index, promptCount);
      }
    })();
    this.samePrompt.set(key, pending);
    // A candidate sent back to the pool asks again rather than getting the same failure.
    pending.catch(() => this.samePrompt.delete(key));
    return pending;
  }

  /** The batch budget: prompt tokens in flight on one endpoint (one prompt over it still goes, alone). */
  private async acquireTokens(index: number, tokens: number): Promise<void> {
    const inFlight = this.inFlightTokens;
    while ((inFlight[index] ?? 0) > 0 && (inFlight[index] ?? 0) + tokens > this.options.batchTokens)
      await new Promise<void>((resolve) => this.tokenWaiters[index]?.push(resolve));
    inFlight[index] = (inFlight[index] ?? 0) + tokens;
  }

  private releaseTokens(index: number, tokens: number): void {
    this.inFlightTokens[index] = (this.inFlightTokens[index] ?? 0) - tokens;
    for (const wake of this.tokenWaiters[index]?.splice(0) ?? []) wake();
  }
}

function failed(job: ScoringJob, error: string, errorKind: FailedCandidate["errorKind"]): FailedCandidate {
  return {
    schemaVersion: 1,
    task: job.task.task,
    candidate: job.candidate.id,
    teacher: job.candidate.teacher,
    error: `${job.task.task} / ${job.candidate.id}: ${error}`,
    errorKind,
    settingsDigest: job.settingsDigest,
    scoredAt: new Date().toISOString(),
  };
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
  // Each token's text, cut where its added line ends (a token that runs past it shows its own line's part only).
  const lineEnds = prompt.added.map(([, end]) => end + shift);
  const detail = tokens.indices.map((index, k): [number, string, number] => {
    const start = echoed.offsets[index]!;
    const end = Math.min(echoed.offsets[index + 1] ?? prompt.text.length + shift, lineEnds[tokens.lines[k]!]!);
    return [tokens.lines[k]!, echoed.text.slice(start, end), logprobs[k] as number];
  });
  return {
    meanLogprob,
    addedTokens: logprobs.length,
    tokens: detail,
    startsBefore: tokens.startsBefore,
    runsPast: tokens.runsPast,
  };
}
