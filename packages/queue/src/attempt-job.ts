import { RunRecordSchema } from "@loclab/schemas";
import { z } from "zod";

/** What a job carries: which run and key, and the attempt number its first execution takes. */
export const AttemptJobSchema = z.strictObject({
  runId: z.string().min(1),
  key: z.string().min(1),
  /** The key's last attempt in the ledger + 1 when enqueued; BullMQ's retries add to it. */
  firstAttempt: z.number().int().positive(),
});
export type AttemptJob = z.infer<typeof AttemptJobSchema>;

/** What the coordinator stores for workers: the spec as it parsed it, and the run kind's name. */
export const QueuedRunSchema = z.strictObject({
  kind: z.enum(["localization", "repair"]),
  spec: z.record(z.string(), z.unknown()),
});
export type QueuedRun = z.infer<typeof QueuedRunSchema>;

/** A file an attempt wrote, relative to the run folder (text as UTF-8, or base64). */
export const CarriedFileSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .refine((path) => !path.startsWith("/") && !path.split("/").includes(".."), "a path inside the run folder"),
  utf8: z.string().optional(),
  base64: z.string().optional(),
});
export type CarriedFile = z.infer<typeof CarriedFileSchema>;

/**
 * One execution of a job, as a worker reports it on the run's results stream before it tells
 * BullMQ the job is done: its record and the files it wrote. Two executions of one key (a job
 * that stalled and ran again) both report; the coordinator commits one.
 */
export const ExecutionResultSchema = z.strictObject({
  key: z.string().min(1),
  attempt: z.number().int().positive(),
  /** A fresh id per execution. */
  execution: z.string().min(1),
  /** `host-pid` of the worker. */
  worker: z.string().min(1),
  /** Milliseconds since the epoch: the job added, taken by the worker, finished by it. */
  enqueuedAt: z.number(),
  startedAt: z.number(),
  finishedAt: z.number(),
  /** The endpoint's index in the spec. */
  endpoint: z.number().int().nonnegative().nullable(),
  /** True when BullMQ will run the job again (an `infra_error` with tries left). */
  willRetry: z.boolean(),
  record: RunRecordSchema,
  files: z.array(CarriedFileSchema),
});
export type ExecutionResult = z.infer<typeof ExecutionResultSchema>;
