import { z } from "zod";

const PositiveInt = z.number().int().positive();

/**
 * The arms of a repair run (a cell dimension beside the seed; docs/definitions.md §9):
 * `single`, FGL's single-agent fixer with no hand-off, the transfer's baseline (`baseline` is
 * read as `single`); `two-agent`, the fixer with a `localizer` tool (FGL's structure); and
 * SHERLOC's transfer, the single agent handed something before it starts: `locations`, the
 * run's localizer's files and spans; `findings`, those and its five-field finding, always;
 * `judged`, the finding only when the judge's composite reaches the threshold (else the
 * baseline prompt); `oracle`, the gold patch's files and spans (an upper bound no paper
 * reports).
 */
export const REPAIR_ARMS = ["single", "two-agent", "oracle", "locations", "findings", "judged"] as const;
export type RepairArm = (typeof REPAIR_ARMS)[number];

/** The arms handed the run's localizer's prediction: they share one localizer stage per task × seed × control. */
export const LOCALIZER_ARMS: ReadonlySet<RepairArm> = new Set(["locations", "findings", "judged"]);

/**
 * The repair agents a run can drive: loclab's fixer, and mini-swe-agent (from the Python package
 * index, pinned, in the project's own virtual environment: `loclab setup mini-swe-agent`).
 */
export const REPAIR_FRAMEWORKS = ["loclab", "mini-swe-agent"] as const;
export type RepairFramework = (typeof REPAIR_FRAMEWORKS)[number];

/** The mini-swe-agent release loclab drives (its templates and trajectory format are this version's). */
export const MINI_SWE_AGENT_VERSION = "2.4.6";

/** The transfer's name for the no-hand-off arm, read as FGL's `single`. */
const Arm = z.preprocess((arm) => (arm === "baseline" ? "single" : arm), z.enum(REPAIR_ARMS));

/**
 * A repair run's settings (`kind: repair`): the fixer's budgets and sampling, the localizer
 * sub-agent's, where instance images come from and how final patches are evaluated. Every
 * setting that changes what an attempt is enters its key; timeouts of requests and of the
 * evaluation do not (they change how it is run).
 */
export const RepairSpecSchema = z.strictObject({
  arms: z
    .array(Arm)
    .min(1)
    .default(["single"])
    .refine((arms) => new Set(arms).size === arms.length, "an arm is listed twice"),
  /** The repair agents, a cell dimension beside the arm (default loclab's fixer alone). */
  frameworks: z
    .array(z.enum(REPAIR_FRAMEWORKS))
    .min(1)
    .default(["loclab"])
    .refine((frameworks) => new Set(frameworks).size === frameworks.length, "a framework is listed twice"),
  /**
   * mini-swe-agent's limits: `stepLimit` (model calls; default the arm's call budget) and
   * `costLimit` (dollars by litellm's price table; 0, the default, is none: a local model has no
   * price). Its wall budget is `wallSeconds`, enforced from outside (mini-swe-agent checks its own
   * only between steps), and its command limit `commandTimeoutSeconds`.
   */
  miniSweAgent: z
    .strictObject({
      stepLimit: PositiveInt.max(10_000).optional(),
      costLimit: z.number().nonnegative().default(0),
    })
    .default({ costLimit: 0 }),
  /** Counted calls per attempt; default FGL's: 36 for `single`, 44 for `two-agent` (the localizer's turns included). */
  callBudget: PositiveInt.max(10_000).optional(),
  /** The attempt's wall budget, enforced by the supervisor (then the current diff is the patch). FGL: 8 minutes. */
  wallSeconds: z.number().positive().default(480),
  /** One run_command's limit (its process group killed then). FGL: 300 s. */
  commandTimeoutSeconds: z.number().positive().default(300),
  /** Model turns at most; default twice the call budget. */
  maxTurns: PositiveInt.max(10_000).optional(),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  /** Output tokens per answer; an answer cut there is a loop candidate. */
  maxOutputTokens: PositiveInt.optional(),
  /**
   * `free` (when absent, as SHERLOC's and FGL's harnesses decode) or `constrained`: every
   * answer decoded by a JSON Schema the server enforces (vLLM's structured outputs, `loclab
   * serve`'s grammar): one valid call of the fixer's tools (loclab's fixer; mini-swe-agent decodes freely) (docs/definitions.md §1, "tool-call decoding"). Optional without a
   * default, so the attempt keys of runs written before it existed stay the same.
   */
  decoding: z.enum(["free", "constrained"]).optional(),

  /** Per request, the whole answer included. */
  requestTimeoutSeconds: z.number().positive().default(300),
  /** Per model call, the client's retries and waits included. */
  callDeadlineSeconds: z.number().positive().default(900),
  /** The `two-agent` arm's localizer: turns per call (charged to the shared budget), locations and ctx(z)'s token budget. */
  localizer: z
    .strictObject({
      maxCalls: PositiveInt.max(1000).default(15),
      maxLocations: PositiveInt.max(100).default(8),
      contextTokens: PositiveInt.default(6000),
    })
    .default({ maxCalls: 15, maxLocations: 8, contextTokens: 6000 }),
  /** Context compaction (FGL: interval 15, overlap 2, threshold 14336, retention 5); off when absent. */
  compaction: z
    .strictObject({
      interval: PositiveInt,
      overlap: z.number().int().nonnegative(),
      thresholdTokens: PositiveInt,
      retention: PositiveInt,
    })
    .optional(),
  /** The sandbox container's memory limit, swap included; 4,096 MiB when absent (docs/definitions.md §9, "sandbox limits"). */
  memoryMiB: PositiveInt.optional(),
  /**
   * The sandbox's other limits (docs/definitions.md §9, "sandbox limits"), each its default when
   * absent: `processes` 1,024 at once, `cpus` 1, `patchBytes` 2 MiB (a final diff over it is
   * verdict `patch-too-large`, never run), `binaryFileBytes` 1 MiB (a changed binary file over
   * it likewise, never even diffed). Optional without defaults, so that the attempt keys of runs
   * written before the limits existed stay the same; given, they enter the key.
   */
  sandbox: z
    .strictObject({
      processes: PositiveInt.max(1 << 22).optional(),
      cpus: z.number().positive().max(1024).optional(),
      /** The writable layer's limit in MiB (4,096 when absent): a command past it is killed and the attempt ends `disk_limit`. */
      diskMiB: PositiveInt.optional(),
      patchBytes: PositiveInt.optional(),
      binaryFileBytes: PositiveInt.optional(),
    })
    .optional(),
  /**
   * Instance images: `local` (default), built here from the run's mirrors as the evaluation
   * builds them; `prebuilt`, SWE-bench's published images (`swebench/sweb.eval.x86_64.…`),
   * pulled unless `pull` is false.
   */
  images: z
    .strictObject({
      source: z.enum(["local", "prebuilt"]).default("local"),
      /** `local`: the harness's cached environments (a SWE-bench checkout's `swebench/resources/swebench-og`). */
      harnessEnvironments: z.string().min(1).optional(),
      /** `prebuilt`: pull images that are not present (default true). */
      pull: z.boolean().default(true),
    })
    .default({ source: "local", pull: true }),
  evaluation: z
    .strictObject({
      /** The eval script's limit in the fresh container. */
      timeoutSeconds: z.number().positive().default(1800),
      /**
       * Evaluations at once, on their own pool: an attempt frees its endpoint slot when its
       * fixer ends, and its patch waits here for an evaluation (default 2: each takes up to
       * `limits.cpus`).
       */
      concurrency: PositiveInt.max(64).optional(),
      /** A JSON file of harness specs for repositories the harness does not know (`loclab evaluate --specs`). */
      specs: z.string().min(1).optional(),
      /** The evaluation's result cache (image + patch + script); default loclab's shared one. */
      cacheDir: z.string().min(1).optional(),
      /**
       * The evaluation container's limits (docs/definitions.md §9, "sandbox limits"), each its
       * default when absent: 4,096 processes, 8,192 MiB, 2 CPUs (a harness spec's nano_cpus
       * wins), a test log of 128 MiB (past it: the verdict `log-over-limit`, not graded).
       */
      limits: z
        .strictObject({
          processes: PositiveInt.max(1 << 22).optional(),
          memoryMiB: PositiveInt.optional(),
          cpus: z.number().positive().max(1024).optional(),
          logMiB: PositiveInt.optional(),
        })
        .optional(),
    })
    .default({ timeoutSeconds: 1800 }),
});
export type RepairSpec = z.output<typeof RepairSpecSchema>;

/** The call budget of an arm: the spec's, else FGL's (36 single, 44 two agents). */
export function armCallBudget(repair: Pick<RepairSpec, "callBudget">, arm: RepairArm): number {
  return repair.callBudget ?? (arm === "two-agent" ? 44 : 36);
}

/** What of the repair settings enters the attempt key: everything but request and evaluation timeouts and file locations. */
export function repairKeyConfig(repair: RepairSpec): Record<string, unknown> {
  const {
    requestTimeoutSeconds: _request,
    callDeadlineSeconds: _deadline,
    arms: _arms,
    frameworks: _frameworks,
    miniSweAgent: _mini,
    evaluation: _evaluation,
    images,
    ...rest
  } = repair;
  return { ...rest, images: images.source };
}
