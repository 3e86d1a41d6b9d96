import { z } from "zod";

/** One line of a scores file: a candidate's score, or why it has none (docs/definitions.md §5). */
export const ScoreRecordSchema = z.union([
  z.object({
    schemaVersion: z.literal(1),
    task: z.string(),
    candidate: z.string(),
    teacher: z.boolean(),
    /** s_k = meanLogprob − λ_ctx·ctxTokens/1000 − λ_req·extraReads. */
    score: z.number(),
    /** Mean log p over y+'s tokens (nats per token). */
    meanLogprob: z.number(),
    addedTokens: z.number().int(),
    /**
     * y+'s tokens as [added line (0-based), text, log p]: the heat map of the viewer's FGL page.
     * Absent in files scored before loclab wrote it.
     */
    tokens: z.array(z.tuple([z.number().int().nonnegative(), z.string(), z.number()])).optional(),
    /** tok(z_k): tokens of ctx(z_k), counted by the server. */
    ctxTokens: z.number().int(),
    /** |a_k|: hunks of y* that ctx(z_k) does not show. */
    extraReads: z.number().int(),
    promptTokens: z.number().int(),
    /** Added lines whose first token began on the line before; tokens that ran past their line's end. */
    startsBefore: z.number().int(),
    runsPast: z.number().int(),
    /** Locations shown whole or cut; omitted by the budget. */
    shown: z.number().int(),
    omitted: z.number().int(),
    cut: z.boolean(),
    lambdaCtx: z.number(),
    lambdaReq: z.number(),
    /** What the score depends on besides the server: candidate, patch, issue, budget, λs, model. */
    settingsDigest: z.string(),
    endpoint: z.string(),
    model: z.string(),
    /** Seconds in the completions request; in /tokenize calls. */
    requestSeconds: z.number(),
    tokenizeSeconds: z.number(),
    scoredAt: z.string(),
  }),
  z.object({
    schemaVersion: z.literal(1),
    task: z.string(),
    /** Null: the task as a whole (a patch with no added lines). */
    candidate: z.string().nullable(),
    teacher: z.boolean(),
    error: z.string(),
    /** `render`: ctx(z) could not be shown; `patch`: y* has nothing to score; `request`: the server refused or answered without logprobs; `overflow`: the prompt is longer than the server's window; `infrastructure`: retries ran out. */
    errorKind: z.enum(["render", "patch", "request", "overflow", "infrastructure"]),
    settingsDigest: z.string(),
    scoredAt: z.string(),
  }),
]);
export type ScoreRecord = z.infer<typeof ScoreRecordSchema>;
export type ScoredCandidate = Extract<ScoreRecord, { score: number }>;
export type FailedCandidate = Extract<ScoreRecord, { error: string }>;

/** Whether a score line carries a score (for `records.filter(isScored)`). */
export function isScored(record: ScoreRecord): record is ScoredCandidate {
  return "score" in record;
}

/** Whether a score line is an error line. */
export function isFailed(record: ScoreRecord): record is FailedCandidate {
  return "error" in record;
}

/**
 * Whether a line settles its settings digest, so that a later run skips it: a score, or the
 * one line of a patch that adds nothing. Render, request, overflow and infrastructure failures
 * stay open (a later run tries them again): they depend on the code source or on the server,
 * neither of which is in the digest.
 */
export function isFinalScore(record: ScoreRecord): boolean {
  return isScored(record) || record.errorKind === "patch";
}
