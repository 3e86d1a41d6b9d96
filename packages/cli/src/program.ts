import { Command, CommanderError } from "commander";
import { addressedCommand, unknownOptionMessage } from "./usage-errors.js";
import { COMMAND_GROUPS, type CommandGroup, addressedGroup } from "./command-index.js";
import { summaryOf } from "./command-summaries.js";
import { cliVersion } from "./provenance.js";

/**
 * The `loclab` program. `load: "all"` registers every command in full (for tests and
 * tooling); `load: group` registers that group's commands in full and every other command as
 * a name and summary only, which is all `loclab --help` and commander's "did you mean" need,
 * so that a command pays only for its own module's imports.
 */
export async function buildProgram(
  options: { load: "all" | CommandGroup | undefined } = { load: "all" },
): Promise<Command> {
  const program = new Command()
    .name("loclab")
    .description(
      "Benchmark code-localization and code-repair agents: benchmarks, gold locations, metrics, controls, statistics.",
    )
    .version(cliVersion)
    // A parent command's options only before its subcommand's name: `evaluate --benchmark` and
    // `evaluate grade --benchmark` are each their own command's option.
    .enablePositionalOptions()
    // Usage errors are one line, printed by runCli (commander's own would add the whole help).
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text), outputError: () => {} });
  const groups: readonly CommandGroup[] = COMMAND_GROUPS;
  const registers = await Promise.all(
    groups.map((group) => (options.load === "all" || options.load === group ? group.load() : undefined)),
  );
  groups.forEach((group, i) => {
    const register = registers[i];
    if (register) register(program);
    else for (const name of group.commands) program.command(name).description(summaryOf(name));
  });
  return program;
}

/**
 * Runs the CLI. Errors print as one `loclab: error: …` line (the message already names the
 * file, line or instance) and set exit code 1; a stack trace only with `LOCLAB_DEBUG=1`.
 */
export async function runCli(argv: readonly string[]): Promise<void> {
  const program = await buildProgram({ load: addressedGroup(argv.slice(2)) });
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
      process.stderr.write(
        `loclab: error: ${message}; see 'loclab${path.length > 0 ? ` ${path.join(" ")}` : ""} --help'\n`,
      );
      process.exitCode = 1;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`loclab: error: ${message}\n`);
    if (process.env.LOCLAB_DEBUG === "1" && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
}
