import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PromptName } from "@loclab/agent";
import { mismatchPairing } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { cellLabel, type Instance, type MismatchPair, type RunCell } from "@loclab/schemas";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { attemptKey } from "./attempt-key.js";
import { RunSpecError } from "./load-run-spec.js";
import type { RunSpec } from "./run-spec.js";
import { selectInstances } from "./select-instances.js";
import {
  LOCALIZER_ARMS,
  MINI_SWE_AGENT_VERSION,
  type RepairArm,
  RepairSpecSchema,
  repairKeyConfig,
} from "./repair-spec.js";
import { type JudgePlan, planJudge } from "./judge-plan.js";

/** One attempt key of a run: an instance under one cell. */
export interface PlannedAttempt {
  key: string;
  instance: Instance;
  cell: RunCell;
  /** `seed-1/masked-modules`. */
  cellLabel: string;
  /** For a `mismatch` cell: whose snapshot the instance gets. */
  mismatch?: MismatchPair;
}

/** Everything a run decides before it starts, from the spec alone (pure apart from reading the benchmark and prompts). */
export interface RunPlan {
  spec: RunSpec;
  benchmarkName: string;
  instances: Instance[];
  cells: RunCell[];
  /** Instance-major (each instance's cells one after another), so partial runs stay paired across cells. */
  attempts: PlannedAttempt[];
  /** What enters every key besides instance, seed and control. */
  config: Record<string, unknown>;
  prompts: Partial<Record<PromptName, string>>;
  /** Per mismatch seed, the pairing over the run's instances. */
  pairings: Map<number, MismatchPair[]>;
  /**
   * What a localization run of the same localizer settings would key its attempts with: the
   * key of a repair run's localizer stage (the prediction its `locations`, `findings` and
   * `judged` arms share) is that key, so the stage's result is the localization run's.
   */
  localizationConfig: Record<string, unknown>;
  /** A repair run's judge: its rubric, digest, weights and threshold (when the spec has one). */
  judge?: JudgePlan;
}

const PROMPT_NAMES: readonly PromptName[] = ["system", "system-text", "user", "forced-final", "final-repair"];

/** The prompt templates of `promptsDir` (only those present replace the shipped ones). */
async function readPrompts(dir: string | undefined): Promise<Partial<Record<PromptName, string>>> {
  if (!dir) return {};
  if (!existsSync(dir)) throw new RunSpecError("$.localizer.promptsDir", `${dir} does not exist`);
  const prompts: Partial<Record<PromptName, string>> = {};
  for (const name of PROMPT_NAMES) {
    const file = join(dir, `${name}.md`);
    if (existsSync(file)) prompts[name] = await readFile(file, "utf8");
  }
  if (Object.keys(prompts).length === 0)
    throw new RunSpecError(
      "$.localizer.promptsDir",
      `${dir} holds none of ${PROMPT_NAMES.map((name) => `${name}.md`).join(", ")}`,
    );
  if (prompts.user?.includes("{{instanceId}}"))
    throw new RunSpecError(
      "$.localizer.promptsDir",
      `${join(dir, "user.md")} uses {{instanceId}}, which is not filled any more (the model must not see the instance id); write {{taskLabel}}, an opaque label`,
    );
  return prompts;
}

/** The cells of a spec: seeds × controls (× arms for a repair run), seed-major. */
export function runCells(spec: Pick<RunSpec, "seeds" | "controls" | "kind" | "repair">): RunCell[] {
  const seeds: (number | null)[] = spec.seeds ?? [null];
  const arms: (string | undefined)[] = spec.kind === "repair" ? (spec.repair?.arms ?? ["single"]) : [undefined];
  // loclab's own fixer has no framework part, so the cells and keys of runs before frameworks stay the same.
  const frameworks: (string | undefined)[] =
    spec.kind === "repair"
      ? (spec.repair?.frameworks ?? ["loclab"]).map((framework) => (framework === "loclab" ? undefined : framework))
      : [undefined];
  return seeds.flatMap((seed) =>
    spec.controls.flatMap((control) =>
      frameworks.flatMap((framework) =>
        arms.map((arm) => ({
          seed,
          control,
          ...(arm !== undefined ? { arm } : {}),
          ...(framework !== undefined ? { framework } : {}),
        })),
      ),
    ),
  );
}

/**
 * Resolves a spec into its attempt keys: loads the benchmark, selects the instances, crosses
 * them with the cells, pairs instances for each mismatch seed (the existing pairing of
 * @loclab/controls, over the run's own instances) and hashes each attempt's key. Errors name
 * the field of the spec (`RunSpecError`).
 */
export async function planRun(spec: RunSpec): Promise<RunPlan> {
  let benchmark;
  try {
    benchmark = await loadBenchmark(spec.benchmark, spec.dataDir ? { dataDir: spec.dataDir } : {});
  } catch (error) {
    throw new RunSpecError("$.benchmark", error instanceof Error ? error.message : String(error));
  }
  const instances = selectInstances(benchmark.instances, spec.instances);
  const prompts = await readPrompts(spec.localizer.promptsDir);
  const {
    requestTimeoutSeconds: _timeout,
    callDeadlineSeconds: _deadline,
    promptsDir: _dir,
    ...localizer
  } = spec.localizer;
  const promptsDigest =
    Object.keys(prompts).length === 0
      ? null
      : createHash("sha256")
          .update(JSON.stringify(Object.entries(prompts).sort()))
          .digest("hex");
  // Timeouts and the prompts' folder are left out: they change how an attempt is run, not what it is.
  const localizationConfig = {
    model: spec.endpoints[0]?.model,
    localizer,
    instanceBudgets: spec.budgets.instance,
    prompts: promptsDigest,
  };
  const judge = spec.judge ? await planJudge(spec.judge) : undefined;
  // A repair run's key holds the fixer's settings instead of the localizer's (its arm is in the
  // cell); an arm handed the localizer's prediction adds the localizer's settings, and the judged
  // arm the judge's model, rubric digest, weights and threshold.
  const repairConfig = (arm: string | undefined, framework?: string) => {
    const repair = spec.repair ?? RepairSpecSchema.parse({});
    const shared = {
      model: spec.endpoints[0]?.model,
      kind: "repair",
      repair: repairKeyConfig(repair),
      // mini-swe-agent's version and limits enter its cells' keys alone.
      ...(framework === "mini-swe-agent"
        ? { miniSweAgent: { version: MINI_SWE_AGENT_VERSION, ...repair.miniSweAgent } }
        : {}),
    };
    if (arm === undefined || !LOCALIZER_ARMS.has(arm as RepairArm)) return shared;
    return {
      ...shared,
      handOff: {
        localization: localizationConfig,
        ...(arm === "judged" && judge ? { judge: judge.keyConfig } : {}),
      },
    };
  };
  const config = spec.kind === "repair" ? repairConfig(undefined) : localizationConfig;
  const cells = runCells(spec);
  const pairings = new Map<number, MismatchPair[]>();
  spec.controls.forEach((control, index) => {
    if (control.kind !== "mismatch" || pairings.has(control.seed)) return;
    try {
      pairings.set(control.seed, mismatchPairing(instances, { seed: control.seed }).pairs);
    } catch (error) {
      throw new RunSpecError(
        `$.controls[${index}]`,
        `${error instanceof Error ? error.message : String(error)}; select instances of more repositories`,
      );
    }
  });
  const attempts: PlannedAttempt[] = [];
  for (const instance of instances) {
    for (const cell of cells) {
      const mismatch =
        cell.control.kind === "mismatch"
          ? pairings.get(cell.control.seed)?.find((pair) => pair.instanceId === instance.instance_id)
          : undefined;
      attempts.push({
        key: attemptKey({
          benchmark: benchmark.name,
          instanceId: instance.instance_id,
          seed: cell.seed,
          control: cell.control,
          ...(cell.arm !== undefined ? { arm: cell.arm } : {}),
          ...(cell.framework !== undefined ? { framework: cell.framework } : {}),
          config: spec.kind === "repair" ? repairConfig(cell.arm, cell.framework) : config,
        }),
        instance,
        cell,
        cellLabel: cellLabel(cell),
        ...(mismatch ? { mismatch } : {}),
      });
    }
  }
  return {
    spec,
    benchmarkName: benchmark.name,
    instances,
    cells,
    attempts,
    config,
    prompts,
    pairings,
    localizationConfig,
    ...(judge ? { judge } : {}),
  };
}

/**
 * The key of an attempt's localizer stage (a repair run's `locations`, `findings` and `judged`
 * arms): the key the same instance, seed and control would have in a localization run of the
 * run's localizer settings.
 */
export function localizationStageKey(plan: RunPlan, attempt: Pick<PlannedAttempt, "instance" | "cell">): string {
  return attemptKey({
    benchmark: plan.benchmarkName,
    instanceId: attempt.instance.instance_id,
    seed: attempt.cell.seed,
    control: attempt.cell.control,
    config: plan.localizationConfig,
  });
}
