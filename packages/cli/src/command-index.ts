import type { Command } from "commander";
import type { CommandName } from "./command-summaries.js";

/**
 * The top-level commands, in the order `loclab --help` lists them, grouped by the module that
 * registers them. A module is imported only when one of its commands runs (or its help is
 * asked for): `loclab mcnemar` does not load arquero, the OpenAI client or the Docker client,
 * which other commands need. Summaries come from command-summaries.ts.
 */
export const COMMAND_GROUPS = [
  { commands: ["datasets"], load: async () => (await import("./commands/datasets.js")).registerDatasetsCommand },
  { commands: ["gold"], load: async () => (await import("./commands/gold.js")).registerGoldCommand },
  { commands: ["mirrors"], load: async () => (await import("./commands/mirrors.js")).registerMirrorsCommand },
  { commands: ["demo"], load: async () => (await import("./commands/demo.js")).registerDemoCommand },
  { commands: ["cache"], load: async () => (await import("./commands/cache.js")).registerCacheCommand },
  {
    commands: ["fgl"],
    load: async () => (await import("./commands/fgl.js")).registerFglCommand,
  },
  { commands: ["score"], load: async () => (await import("./commands/score.js")).registerScoreCommand },
  { commands: ["mcnemar"], load: async () => (await import("./commands/mcnemar.js")).registerMcNemarCommand },
  {
    commands: ["compare"],
    load: async () => (await import("./commands/compare.js")).registerCompareCommand,
  },
  { commands: ["power"], load: async () => (await import("./commands/power.js")).registerPowerCommand },
  { commands: ["mask"], load: async () => (await import("./commands/mask.js")).registerMaskCommand },
  {
    commands: ["shuffle", "unshuffle"],
    load: async () => (await import("./commands/shuffle.js")).registerShuffleCommands,
  },
  { commands: ["tool"], load: async () => (await import("./commands/tool.js")).registerToolCommand },
  {
    commands: ["breakdown"],
    load: async () => (await import("./commands/breakdown.js")).registerBreakdownCommand,
  },
  {
    commands: ["localize"],
    load: async () => (await import("./commands/localize.js")).registerLocalizeCommand,
  },
  {
    commands: ["run", "status"],
    load: async () => (await import("./commands/run.js")).registerRunCommands,
  },
  { commands: ["worker"], load: async () => (await import("./commands/worker.js")).registerWorkerCommand },
  {
    commands: ["report", "view"],
    load: async () => (await import("./commands/report.js")).registerReportCommands,
  },
  { commands: ["serve"], load: async () => (await import("./commands/serve.js")).registerServeCommand },
  {
    commands: ["vllm"],
    load: async () => (await import("./commands/vllm.js")).registerVllmCommands,
  },
  {
    commands: ["evaluate"],
    load: async () => (await import("./commands/evaluate.js")).registerEvaluateCommand,
  },
  { commands: ["setup"], load: async () => (await import("./commands/setup.js")).registerSetupCommand },
  { commands: ["reproduce"], load: async () => (await import("./commands/reproduce.js")).registerReproduceCommand },
] as const satisfies readonly CommandGroup[];

export interface CommandGroup {
  /** The top-level commands the module registers. */
  commands: readonly CommandName[];
  /** Imports the module and returns its register function (which adds every command of the group). */
  load: () => Promise<(program: Command) => void>;
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
  return (COMMAND_GROUPS as readonly CommandGroup[]).find((group) =>
    (group.commands as readonly string[]).includes(name),
  );
}
