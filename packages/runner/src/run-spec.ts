import { ControlSchema, controlLabel, InstanceIdSchema } from "@loclab/schemas";
import { z } from "zod";
import { LOCALIZER_ARMS, RepairSpecSchema } from "./repair-spec.js";

const Seed = z
  .number()
  .int()
  .nonnegative()
  .max(2 ** 32 - 1);
const PositiveInt = z.number().int().positive();

/** An http(s) URL, the scheme checked here because `new URL("ftp://…")` parses. */
const HttpUrl = z.url({ protocol: /^https?$/, error: "an http:// or https:// URL, e.g. http://127.0.0.1:8000/v1" });

/** Which of the benchmark's instances a run takes (all conditions apply; order is the benchmark's). */
export const InstanceSelectionSchema = z.strictObject({
  /** Only these instance ids; an id the benchmark lacks is an error. */
  ids: z.array(InstanceIdSchema).min(1).optional(),
  /** Only instances of these repositories (`owner/name`). */
  repos: z
    .array(z.string().regex(/^[^/\s]+\/[^/\s]+$/, "owner/name"))
    .min(1)
    .optional(),
  /** A slice of what is left, 0-based, `end` exclusive (like Array.prototype.slice). */
  slice: z
    .strictObject({ start: z.number().int().nonnegative().default(0), end: z.number().int().nonnegative().optional() })
    .optional(),
  /** Then a seeded random sample of `n` of what is left (kept in benchmark order). */
  sample: z.strictObject({ n: PositiveInt, seed: Seed }).optional(),
});
export type InstanceSelection = z.output<typeof InstanceSelectionSchema>;

/** One model server of the pool. */
export const EndpointSpecSchema = z.strictObject({
  /** OpenAI-compatible base URL, e.g. `http://127.0.0.1:8000/v1` (vLLM). */
  baseURL: HttpUrl,
  /** The model name the server serves (vLLM's `--served-model-name`, or the model path). */
  model: z.string().min(1),
  /** Instances in flight at once on this server (each one request at a time). */
  maxConcurrency: PositiveInt.max(1024).default(1),
  /** The environment variable holding its API key (never the key itself). */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an environment variable name")
    .optional(),
  /** Share of the load relative to the others (default 1): a faster server gets more. */
  weight: z.number().positive().default(1),
});
export type EndpointSpec = z.output<typeof EndpointSpecSchema>;

/**
 * The judge (a model role of the run spec, beside the endpoints of the fixer and the
 * localizer): its own pool of servers, the rubric, the composite's weights and the threshold
 * of the `judged` arm. The judge grades every finding the localizer stage hands on, so that the
 * findings arm has composites for the quality bins and the threshold sweep.
 */
export const JudgeSpecSchema = z.strictObject({
  /** The judge's servers (e.g. a larger model than the fixer's); one model for all. */
  endpoints: z.array(EndpointSpecSchema.omit({ weight: true })).min(1),
  /** The `judged` arm injects a finding whose composite is at least this (SHERLOC: 4.0). */
  threshold: z.number().min(1).max(5).default(4),
  /** The composite's weights by criterion id; default equal over root cause, location and actionability. */
  weights: z.record(z.string(), z.number().nonnegative()).optional(),
  /** A JSON rubric file (`{criteria: [{id, name, question, levels: {"1": …, "5": …}}]}`); default SHERLOC's three criteria. */
  rubric: z.string().min(1).optional(),
  temperature: z.number().min(0).max(2).default(0),
  maxOutputTokens: PositiveInt.optional(),
  /**
   * `free` (when absent, as SHERLOC's and FGL's harnesses decode) or `constrained`: every
   * answer decoded by a JSON Schema the server enforces (vLLM's structured outputs, `loclab
   * serve`'s grammar): the rubric's answer shape (docs/definitions.md §1, "tool-call decoding"). Optional without a
   * default, so the attempt keys of runs written before it existed stay the same.
   */
  decoding: z.enum(["free", "constrained"]).optional(),

  /** Per request, the whole answer included. */
  requestTimeoutSeconds: z.number().positive().default(300),
});
export type JudgeSpec = z.output<typeof JudgeSpecSchema>;

/** The localizer's settings; every one of them enters the attempt key. */
export const LocalizerSpecSchema = z.strictObject({
  maxTurns: PositiveInt.max(1000).default(20),
  toolMode: z.enum(["native", "text"]).default("native"),
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().gt(0).max(1).optional(),
  maxOutputTokens: PositiveInt.optional(),
  /** Per request, the whole answer included. */
  requestTimeoutSeconds: z.number().positive().default(300),
  /** Per model call, the client's retries and waits included. */
  callDeadlineSeconds: z.number().positive().default(900),
  /** Estimated prompt tokens above which the oldest observations are cut to a stub. */
  contextLimitTokens: PositiveInt.optional(),
  maxLocations: PositiveInt.max(100).default(8),
  /** A folder of prompt templates replacing the shipped ones by file name (`system.md`, `user.md`, …). */
  promptsDir: z.string().min(1).optional(),
  /**
   * `loclab` (when absent) or `sherloc`: SHERLOC's text protocol, tools and settings
   * (docs/definitions.md §1, "the sherloc profile"); with `sherloc`, `temperature` and `topP`
   * default to SHERLOC's 0.99 and 0.95. Optional without a default so that the attempt keys of
   * runs written before it existed stay the same.
   */
  profile: z.enum(["loclab", "sherloc"]).optional(),
  /**
   * `free` (when absent, as SHERLOC's and FGL's harnesses decode) or `constrained`: every
   * answer decoded by a JSON Schema the server enforces (vLLM's structured outputs, `loclab
   * serve`'s grammar): one valid call of the localizer's tools, in native or text mode; not with the sherloc profile (docs/definitions.md §1, "tool-call decoding"). Optional without a
   * default, so the attempt keys of runs written before it existed stay the same.
   */
  decoding: z.enum(["free", "constrained"]).optional(),
});
export type LocalizerSpec = z.output<typeof LocalizerSpecSchema>;

export const BudgetsSpecSchema = z.strictObject({
  /** Per instance (per attempt), beside `localizer.maxTurns`. */
  instance: z
    .strictObject({ tokens: PositiveInt.optional(), wallSeconds: z.number().positive().optional() })
    .default({}),
  /** For the whole run: when spent, no new attempt starts (those in flight finish); resuming goes on. */
  run: z.strictObject({ tokens: PositiveInt.optional(), wallSeconds: z.number().positive().optional() }).default({}),
});

/** How infrastructure failures are retried (model outcomes never are). */
export const RetrySpecSchema = z.strictObject({
  /** Retries of one model request by the client (5xx, 429, timeouts, cut connections, bad bodies). */
  requestRetries: z.number().int().nonnegative().max(20).default(3),
  /** Wait before the first retry, doubling, with jitter. */
  backoffSeconds: z.number().nonnegative().default(1),
  /** Attempts at one key in one session before it is left open (an endpoint that keeps dropping it). */
  attemptsPerKey: PositiveInt.max(50).default(4),
  /** Consecutive transport faults that take an endpoint out (circuit breaker). */
  breakerFailures: PositiveInt.default(3),
  /** First probe of an endpoint taken out, doubling up to a minute. */
  probeSeconds: z.number().positive().default(2),
  /** Liveness checks of every endpoint while running. */
  healthSeconds: z.number().positive().default(10),
  /** How long a run waits with every endpoint down before it stops (resumable). */
  pauseSeconds: z.number().positive().default(1800),
});

/**
 * A run: the localizer over a benchmark's instances, each under every seed × control (the
 * cells), against a pool of model servers. JSON or YAML (`loadRunSpec`), or built in code
 * (`parseRunSpec`). Unknown keys are refused everywhere, with the JSON path of the field.
 * Relative paths (`benchmark` when a file, `repos`, `out`, `cacheDir`, `promptsDir`) are
 * relative to the spec file's folder (or `baseDir` in code).
 */
export const RunSpecSchema = z
  .strictObject({
    /** A name for tables and the manifest; default the output folder's name. */
    name: z.string().min(1).optional(),
    /**
     * `localization` (when absent: the localizer, one prediction per attempt) or `repair`: the
     * fixer in the task's container, its final patch evaluated (the `repair` block).
     */
    kind: z.enum(["localization", "repair"]).optional(),
    /** A repair run's settings (`kind: repair`). */
    repair: RepairSpecSchema.optional(),
    /** The judge of a repair run's findings (the `judged` arm needs one). */
    judge: JudgeSpecSchema.optional(),
    /** `lite`, `verified`, `locbench`, or a JSONL file of SWE-bench rows. */
    benchmark: z.string().min(1),
    /** The shared data folder for bundled benchmarks (default: found as the CLI finds it). */
    dataDir: z.string().min(1).optional(),
    /** A list of ids, or a selection; default every instance. */
    instances: z.union([z.array(InstanceIdSchema).min(1), InstanceSelectionSchema]).optional(),
    /** Sampling seeds sent to the server, one cell per seed; omitted: one cell, no seed sent. */
    seeds: z.array(Seed).min(1).optional(),
    controls: z
      .array(ControlSchema)
      .min(1)
      .default([{ kind: "plain" }]),
    endpoints: z.array(EndpointSpecSchema).min(1),
    localizer: LocalizerSpecSchema.default(LocalizerSpecSchema.parse({})),
    budgets: BudgetsSpecSchema.default(BudgetsSpecSchema.parse({})),
    retry: RetrySpecSchema.default(RetrySpecSchema.parse({})),
    /** The folder of git mirrors, one per repository (`<owner>__<name>[.git]`). */
    repos: z.string().min(1),
    /**
     * Preparing attempts ahead of their endpoint slot (workspaces: checkout, masking, shuffled
     * copies; a repair run's instance images): `concurrency` at once, on their own pool
     * (default the machine's cores, at most 4). Not part of any attempt key.
     */
    preparation: z.strictObject({ concurrency: PositiveInt.max(64).optional() }).optional(),
    /** Where materialized and shuffled trees are cached; default the shared cache of all runs (`defaultWorkspaceCacheDir`: `~/.cache/loclab/workspaces`). */
    cacheDir: z.string().min(1).optional(),
    out: z.string().min(1),
  })
  .superRefine((spec, ctx) => {
    if (spec.localizer.profile === "sherloc" && spec.localizer.decoding === "constrained")
      ctx.addIssue({
        code: "custom",
        path: ["localizer", "decoding"],
        message:
          'the sherloc profile answers in free text (its <tool_call> blocks): decoding "constrained" does not apply',
      });
    if (spec.repair && spec.kind !== "repair")
      ctx.addIssue({ code: "custom", path: ["repair"], message: "a repair block needs kind: repair" });
    if (spec.judge && spec.kind !== "repair")
      ctx.addIssue({
        code: "custom",
        path: ["judge"],
        message: "a judge grades a repair run's findings: it needs kind: repair",
      });
    const arms = spec.kind === "repair" ? (spec.repair?.arms ?? ["single"]) : [];
    if (arms.includes("judged") && !spec.judge)
      ctx.addIssue({
        code: "custom",
        path: ["judge"],
        message:
          "the judged arm needs a judge: a judge block with its endpoints (e.g. judge: {endpoints: [{baseURL: …, model: …}]})",
      });
    if (arms.includes("two-agent") && spec.repair?.frameworks.includes("mini-swe-agent"))
      ctx.addIssue({
        code: "custom",
        path: ["repair", "frameworks"],
        message:
          "mini-swe-agent has no localizer tool: the two-agent arm is loclab's fixer alone (run it in a spec of its own)",
      });
    // The fixer always works on the real repository in its container; a control shapes only what
    // the localizer stage sees (its prediction is mapped back to the real paths before the hand-off).
    if (spec.kind === "repair")
      spec.controls.forEach((control, i) => {
        if (control.kind === "plain") return;
        const usable =
          control.kind !== "mismatch" && arms.some((arm) => LOCALIZER_ARMS.has(arm)) && !arms.includes("two-agent");
        if (!usable)
          ctx.addIssue({
            code: "custom",
            path: ["controls", i],
            message: `a repair run's fixer works on the real repository in its container; a control (${controlLabel(control)}) shapes only what its localizer stage sees: masked or shuffled, with a locations, findings or judged arm and no two-agent arm`,
          });
      });
    const seen = new Map<number, number>();
    spec.seeds?.forEach((seed, i) => {
      if (seen.has(seed))
        ctx.addIssue({
          code: "custom",
          path: ["seeds", i],
          message: `seed ${seed} is listed twice (also seeds[${seen.get(seed)}])`,
        });
      seen.set(seed, i);
    });
    const labels = new Map<string, number>();
    spec.controls.forEach((control, i) => {
      const label = controlLabel(control);
      if (labels.has(label))
        ctx.addIssue({
          code: "custom",
          path: ["controls", i],
          message: `control ${label} is listed twice (also controls[${labels.get(label)}])`,
        });
      labels.set(label, i);
    });
    const judgeModel = spec.judge?.endpoints[0]?.model;
    spec.judge?.endpoints.forEach((endpoint, i) => {
      if (endpoint.model !== judgeModel)
        ctx.addIssue({
          code: "custom",
          path: ["judge", "endpoints", i, "model"],
          message: `every judge endpoint serves the same model (judge.endpoints[0] serves ${JSON.stringify(judgeModel)})`,
        });
    });
    const model = spec.endpoints[0]?.model;
    spec.endpoints.forEach((endpoint, i) => {
      if (endpoint.model !== model) {
        ctx.addIssue({
          code: "custom",
          path: ["endpoints", i, "model"],
          message: `every endpoint of a run serves the same model (endpoints[0] serves ${JSON.stringify(model)}); run another spec for another model`,
        });
      }
    });
    const urls = new Map<string, number>();
    spec.endpoints.forEach((endpoint, i) => {
      const url = endpoint.baseURL.replace(/\/+$/, "");
      if (urls.has(url))
        ctx.addIssue({
          code: "custom",
          path: ["endpoints", i, "baseURL"],
          message: `listed twice (also endpoints[${urls.get(url)}]); raise maxConcurrency instead`,
        });
      urls.set(url, i);
    });
  });
export type RunSpecInput = z.input<typeof RunSpecSchema>;
export type RunSpec = z.output<typeof RunSpecSchema>;
