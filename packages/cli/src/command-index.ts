import type { Command } from "commander";

/**
 * The top-level commands, in the order `loclab --help` lists them, with their one-line
 * summaries, grouped by the module that registers them. A module is imported only when one
 * of its commands runs (or its help is asked for): `loclab mcnemar` does not load arquero,
 * the OpenAI client or the Docker client, which other commands need. The summaries live
 * here, not in the modules, so that `loclab --help` lists every command without importing
 * any of them; each module takes its command's summary from `summaryOf`.
 */
export const COMMAND_GROUPS = [
  { commands: { datasets: "list the bundled benchmark datasets and where their files are" }, load: async () => (await import("./commands/datasets.js")).registerDatasetsCommand },
  { commands: { gold: "print the gold locations (files, created files, line spans, exact symbols with --repos) of a benchmark's patches" }, load: async () => (await import("./commands/gold.js")).registerGoldCommand },
  { commands: { mirrors: "bare git mirrors of a benchmark's repositories: fetch them, check them" }, load: async () => (await import("./commands/mirrors.js")).registerMirrorsCommand },
  { commands: { cache: "the workspace cache runs share: list it, clear it" }, load: async () => (await import("./commands/cache.js")).registerCacheCommand },
  {
    commands: { fgl: "fixer-guided localization: candidates, scoring by a frozen fixer, weights, training records, the offline signal test" },
    load: async () => (await import("./commands/fgl.js")).registerFglCommand,
  },
  { commands: { score: "score a localizer's predictions against a benchmark's gold (docs/definitions.md §3)" }, load: async () => (await import("./commands/score.js")).registerScoreCommand },
  { commands: { mcnemar: "exact McNemar test from the discordant counts b (A only) and c (B only)" }, load: async () => (await import("./commands/mcnemar.js")).registerMcNemarCommand },
  {
    commands: { compare: "exact McNemar tests: every pair of systems of a resolved matrix, or two localization runs metric by metric" },
    load: async () => (await import("./commands/compare.js")).registerCompareCommand,
  },
  { commands: { power: "sample size or minimum detectable effect for paired binary outcomes (Connor 1987)" }, load: async () => (await import("./commands/power.js")).registerPowerCommand },
  { commands: { mask: "mask mentions of repository files in a benchmark's issue texts (path-masking control)" }, load: async () => (await import("./commands/mask.js")).registerMaskCommand },
  {
    commands: {
      shuffle: "write a seeded, renamed copy of a checkout with every Python import rewritten, and the mapping",
      unshuffle: "map a loclab predictions file made on a shuffled tree back to the original names",
    },
    load: async () => (await import("./commands/shuffle.js")).registerShuffleCommands,
  },
  { commands: { tool: "run one of the localizer's tools (view, search, tree, imports) on a local checkout" }, load: async () => (await import("./commands/tool.js")).registerToolCommand },
  {
    commands: { breakdown: "per-run failure breakdown of agent trajectories, with paired tests against a base (docs/definitions.md §8)" },
    load: async () => (await import("./commands/breakdown.js")).registerBreakdownCommand,
  },
  {
    commands: { localize: "run the localizer over a benchmark against one model endpoint: a one-cell loclab run (docs/definitions.md §1, §8)" },
    load: async () => (await import("./commands/localize.js")).registerLocalizeCommand,
  },
  {
    commands: {
      run: "run the localizer over seeds × controls × instances across a pool of model servers (docs/definitions.md §10)",
      status: "the state of a run, finished or not: per cell done / predicted / outcomes, per endpoint attempts and tokens, the runner holding it",
    },
    load: async () => (await import("./commands/run.js")).registerRunCommands,
  },
  { commands: { serve: "serve a local GGUF model on CPU over vLLM's OpenAI-compatible API subset" }, load: async () => (await import("./commands/serve.js")).registerServeCommand },
  {
    commands: { vllm: "plan, start, probe and stop vLLM servers on a GPU host (4×L4: one per GPU, or one with TP=4)" },
    load: async () => (await import("./commands/vllm.js")).registerVllmCommands,
  },
  {
    commands: { evaluate: "evaluate patches in containers, as the SWE-bench harness does (report.json, run summary); grade one log offline; calibrate flaky tests" },
    load: async () => (await import("./commands/evaluate.js")).registerEvaluateCommand,
  },
  { commands: { reproduce: "run the main job on the bundled data and write its tables and charts to results/" }, load: async () => (await import("./commands/reproduce.js")).registerReproduceCommand },
] as const satisfies readonly CommandGroup[];

export interface CommandGroup {
  /** Top-level command name → its one-line summary. */
  commands: Readonly<Record<string, string>>;
  /** Imports the module and returns its register function (which adds every command of the group). */
  load: () => Promise<(program: Command) => void>;
}

type KeysOf<T> = T extends unknown ? keyof T : never;
/** Every top-level command name of the index. */
export type CommandName = KeysOf<(typeof COMMAND_GROUPS)[number]["commands"]>;

/** The summary of a top-level command, as `loclab --help` lists it. */
export function summaryOf(name: CommandName): string {
  for (const group of COMMAND_GROUPS as readonly CommandGroup[]) {
    const summary = group.commands[name];
    if (summary !== undefined) return summary;
  }
  throw new Error(`no command ${name} in the command index`);
}

/**
 * The group a command line addresses: the first argument that is not an option (after
 * `help`, the one that follows it). Undefined for `loclab`, `loclab --help`, `loclab --version`
 * and for a name that is no command (commander then reports it, with a suggestion).
 */
export function addressedGroup(args: readonly string[]): CommandGroup | undefined {
  const positional = args.filter((arg) => !arg.startsWith("-"));
  const name = positional[0] === "help" ? positional[1] : positional[0];
  if (name === undefined) return undefined;
  return (COMMAND_GROUPS as readonly CommandGroup[]).find((group) => Object.hasOwn(group.commands, name));
}
