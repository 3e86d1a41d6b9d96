import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { compositeOf, createModelClient, type Judgement, judgeFinding, type ModelClient } from "@loclab/agent";
import { canonicalJson, type JudgePlan, type RetrySpecSchema } from "@loclab/runner";
import { type JudgementRefSchema, type Prediction, runLayout, writeFileAtomic } from "@loclab/schemas";
import { z } from "zod";
import { readCheckedJson } from "./read-checked-json.js";

type RetrySpec = z.output<typeof RetrySpecSchema>;

/** One judge endpoint's client and its requests in flight. */
interface JudgeSlot {
  client: ModelClient;
  limit: number;
  inFlight: number;
}
type JudgementRef = z.output<typeof JudgementRefSchema>;

const Count = z.number().int().nonnegative();

/**
 * A stored judgement (`judgements/<digest>.json`): the judge's grades of one finding, under one
 * judge model and one rubric, with its raw answers. Weights and threshold are not part of it:
 * they are applied when it is used, so a sweep of either costs no call.
 */
const StoredJudgementSchema = z.strictObject({
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  model: z.string().min(1),
  rubricDigest: z.string().regex(/^[0-9a-f]{64}$/),
  status: z.enum(["judged", "invalid_answer"]),
  scores: z.record(z.string(), z.number().int().min(1).max(5)).optional(),
  feedback: z.record(z.string(), z.string()).optional(),
  repaired: z.boolean().optional(),
  error: z.string().optional(),
  answers: z.array(z.string()),
  usage: z.strictObject({ promptTokens: Count, completionTokens: Count, totalTokens: Count }),
  createdAt: z.string(),
});
type StoredJudgement = z.output<typeof StoredJudgementSchema>;

/**
 * The digest a judgement is stored under: the task (its id and issue text: the judge reads the
 * finding against the issue, so the same words on another task are another judgement), the
 * finding handed on (its locations too), the judge model, the rubric.
 */
export function judgementDigest(
  instance: { instance_id: string; problem_statement: string },
  prediction: Pick<Prediction, "files" | "locations" | "finding">,
  model: string,
  rubricDigest: string,
  decoding: "free" | "constrained" = "free",
): string {
  const handed = { files: prediction.files, locations: prediction.locations, finding: prediction.finding ?? null };
  const task = {
    id: instance.instance_id,
    issue: createHash("sha256").update(instance.problem_statement).digest("hex"),
  };
  // A constrained judge answers differently: its judgements are stored apart. A free judge's
  // digest is the one written before decoding existed.
  const extra = decoding === "constrained" ? { decoding } : {};
  return createHash("sha256")
    .update(canonicalJson({ task, handed, model, rubricDigest, ...extra }))
    .digest("hex");
}

/**
 * The judge of a repair run (a model role of its spec; docs/definitions.md §9): grades the
 * findings its localizer stage hands on, on the judge's own endpoints (each with its own limit
 * of requests in flight, across every attempt of the session). A judgement is stored once per task ×
 * finding × judge model × rubric and reused by every arm and session that hands the same
 * finding on; a judge that failed in transport (`model_error`) is not stored, so a later
 * attempt asks again. Never throws for the judge's doing: a failure is a judgement that does
 * not pass.
 */
export class JudgeRole {
  readonly #plan: JudgePlan;
  readonly #out: string;
  readonly #clients: JudgeSlot[];
  readonly #waiting: (() => void)[] = [];
  readonly #pending = new Map<string, Promise<Judgement>>();

  constructor(plan: JudgePlan, options: { out: string; retry: RetrySpec }) {
    this.#plan = plan;
    this.#out = options.out;
    const { spec } = plan;
    this.#clients = spec.endpoints.map((endpoint) => ({
      client: createModelClient({
        baseURL: endpoint.baseURL,
        model: endpoint.model,
        ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
        temperature: spec.temperature,
        ...(spec.maxOutputTokens !== undefined ? { maxOutputTokens: spec.maxOutputTokens } : {}),
        requestTimeoutMs: spec.requestTimeoutSeconds * 1000,
        maxRetries: options.retry.requestRetries,
        backoffMs: options.retry.backoffSeconds * 1000,
      }),
      limit: endpoint.maxConcurrency,
      inFlight: 0,
    }));
  }

  /** The judge's verdict on the prediction's finding, stored or asked for, as the ledger records it. */
  async judge(
    instance: { instance_id: string; problem_statement: string },
    prediction: Prediction,
  ): Promise<JudgementRef> {
    const { model, rubricDigest, threshold } = this.#plan;
    const digest = judgementDigest(instance, prediction, model, rubricDigest, this.#plan.spec.decoding ?? "free");
    const path = runLayout.judgement(this.#out, digest);
    const pending = this.#pending.get(digest);
    if (pending) {
      const judgement = await pending;
      const stored = judgement.status === "judged" || judgement.status === "invalid_answer";
      return this.#ref(judgement, { cached: stored, path: stored ? path : null });
    }
    if (existsSync(path))
      return this.#ref(toJudgement(await readStored(path), threshold, this.#plan.weights), { cached: true, path });
    const asking = this.#ask(instance, prediction);
    this.#pending.set(digest, asking);
    const judgement = await asking;
    if (judgement.status === "judged" || judgement.status === "invalid_answer") {
      const stored: StoredJudgement = {
        digest,
        model,
        rubricDigest,
        status: judgement.status,
        ...(judgement.status === "judged"
          ? { scores: judgement.scores, feedback: judgement.feedback, repaired: judgement.repaired }
          : { error: judgement.error }),
        answers: judgement.answers,
        usage: judgement.usage,
        createdAt: new Date().toISOString(),
      };
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, `${JSON.stringify(stored)}\n`);
      return this.#ref(judgement, { cached: false, path });
    }
    // Not stored (a failure of the judge's server, or nothing to judge): asked again next time.
    this.#pending.delete(digest);
    return this.#ref(judgement, { cached: false, path: null });
  }

  #ref(judgement: Judgement, where: { cached: boolean; path: string | null }): JudgementRef {
    const usage = where.cached ? { promptTokens: 0, completionTokens: 0, totalTokens: 0 } : judgement.usage;
    const path = where.path ? relative(this.#out, where.path) : null;
    if (judgement.status === "judged")
      return {
        status: "judged",
        scores: judgement.scores,
        composite: judgement.composite,
        threshold: judgement.threshold,
        passes: judgement.passes,
        cached: where.cached,
        usage,
        path,
      };
    return {
      status: judgement.status,
      threshold: this.#plan.threshold,
      passes: false,
      error: judgement.error,
      cached: where.cached,
      usage,
      path,
    };
  }

  async #ask(instance: { instance_id: string; problem_statement: string }, prediction: Prediction): Promise<Judgement> {
    const slot = await this.#acquire();
    try {
      return await judgeFinding({
        client: slot.client,
        instance,
        prediction,
        rubric: this.#plan.rubric,
        weights: this.#plan.weights,
        threshold: this.#plan.threshold,
        constrained: this.#plan.spec.decoding === "constrained",
      });
    } finally {
      slot.inFlight -= 1;
      this.#waiting.shift()?.();
    }
  }

  /** The endpoint with the most room under its limit; waits while every one is full. */
  async #acquire(): Promise<JudgeSlot> {
    for (;;) {
      const free = this.#clients
        .filter((slot) => slot.inFlight < slot.limit)
        .sort((a, b) => a.inFlight / a.limit - b.inFlight / b.limit)[0];
      if (free) {
        free.inFlight += 1;
        return free;
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }
}

/** A stored judgement as a `Judgement` under the run's weights and threshold. */
function toJudgement(stored: StoredJudgement, threshold: number, weights: Readonly<Record<string, number>>): Judgement {
  if (stored.status === "judged" && stored.scores) {
    const composite = compositeOf(stored.scores, weights);
    return {
      status: "judged",
      scores: stored.scores,
      feedback: stored.feedback ?? {},
      composite,
      threshold,
      passes: composite >= threshold,
      repaired: stored.repaired ?? false,
      answers: stored.answers,
      usage: stored.usage,
    };
  }
  return {
    status: "invalid_answer",
    passes: false,
    error: stored.error ?? "invalid answer",
    answers: stored.answers,
    usage: stored.usage,
  };
}

function readStored(path: string): Promise<StoredJudgement> {
  return readCheckedJson(path, StoredJudgementSchema, "judgement");
}
