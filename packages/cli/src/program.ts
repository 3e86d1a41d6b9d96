import { Command, CommanderError } from "commander";
import { addressedCommand, unknownOptionMessage } from "./usage-errors.js";
import { registerDatasetsCommand } from "./commands/datasets.js";
import { registerBreakdownCommand } from "./commands/breakdown.js";
import { registerCompareCommand } from "./commands/compare.js";
import { registerLocalizeCommand } from "./commands/localize.js";
import { registerRunCommands } from "./commands/run.js";
import { registerMaskCommand } from "./commands/mask.js";
import { registerMcNemarCommand } from "./commands/mcnemar.js";
import { registerPowerCommand } from "./commands/power.js";
import { registerCacheCommand } from "./commands/cache.js";
import { registerEvaluateCommand } from "./commands/evaluate.js";
import { registerFglCommand } from "./commands/fgl.js";
import { registerGoldCommand } from "./commands/gold.js";
import { registerMirrorsCommand } from "./commands/mirrors.js";
import { registerReproduceCommand } from "./commands/reproduce.js";
import { registerScoreCommand } from "./commands/score.js";
import { registerServeCommand } from "./commands/serve.js";
import { registerVllmCommands } from "./commands/vllm.js";
import { registerShuffleCommands } from "./commands/shuffle.js";
import { registerToolCommand } from "./commands/tool.js";
import { cliVersion } from "./provenance.js";

/** The `loclab` program with every subcommand registered; `bin.ts` runs it. */
export function buildProgram(): Command {
  const program = new Command()
    .name("loclab")
    .description("Benchmark code-localization and code-repair agents: benchmarks, gold locations, metrics, controls, statistics.")
    .version(cliVersion)
    // A parent command's options only before its subcommand's name: `evaluate --benchmark` and
    // `evaluate grade --benchmark` are each their own command's option.
    .enablePositionalOptions()
    // Usage errors are one line, printed by runCli (commander's own would add the whole help).
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text), outputError: () => {} });
  registerDatasetsCommand(program);
  registerGoldCommand(program);
  registerMirrorsCommand(program);
  registerCacheCommand(program);
  registerFglCommand(program);
  registerScoreCommand(program);
  registerMcNemarCommand(program);
  registerCompareCommand(program);
  registerPowerCommand(program);
  registerMaskCommand(program);
  registerShuffleCommands(program);
  registerToolCommand(program);
  registerBreakdownCommand(program);
  registerLocalizeCommand(program);
  registerRunCommands(program);
  registerServeCommand(program);
  registerVllmCommands(program);
  registerEvaluateCommand(program);
  registerReproduceCommand(program);
  return program;
}

/**
 * Runs the CLI. Errors print as one `loclab: error: …` line (the message already names the
 * file, line or instance) and set exit code 1; a stack trace only with `LOCLAB_DEBUG=1`.
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  const program = buildProgram();
  const unknown = unknownOptionMessage(program, argv.slice(2));
  if (unknown) {
    process.stderr.write(`loclab: error: ${unknown}\n`);
    process.exitCode = 1;
    return;
  }
  try {
    await program.parseAsync([...argv]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      if (error.exitCode === 0) return;
      const { path } = addressedCommand(program, argv.slice(2));
      const message = error.message.replace(/^error: /, "").replace(/\n+/g, " ");
      process.stderr.write(`loclab: error: ${message}; see 'loclab${path.length > 0 ? ` ${path.join(" ")}` : ""} --help'\n`);
      process.exitCode = 1;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`loclab: error: ${message}\n`);
    if (process.env.LOCLAB_DEBUG === "1" && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
}
