import type { Command } from "commander";
import { summaryOf } from "../command-summaries.js";
import { progress } from "../progress.js";

/** `loclab setup mini-swe-agent`: what a repair run with the mini-swe-agent framework needs. */
export function registerSetupCommand(program: Command): void {
  const setup = program.command("setup").description(summaryOf("setup"));
  setup
    .command("mini-swe-agent")
    .description(
      "install mini-swe-agent at the version loclab drives into ~/.cache/loclab/venvs (python3 -m venv, then pip from the Python package index); nothing to do when it is there",
    )
    .option("--python <path>", "the Python that creates the virtual environment", "python3")
    .action(async (options: { python: string }) => {
      const { ensureMiniSweAgent, miniSweAgentVenv } = await import("@loclab/repair");
      const { python, installed } = await ensureMiniSweAgent({ python: options.python, onProgress: progress });
      progress(`${installed ? "installed" : "already installed"}: ${miniSweAgentVenv()} (${python})`);
      process.stdout.write(`${python}\n`);
    });
}
