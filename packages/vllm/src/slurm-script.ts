import { shellCommand, vllmServeArgs, vllmServeEnv } from "./serve-args.js";
import type { VllmServerSpec } from "./server-spec.js";

/** How the servers are asked of Slurm (the cluster's own names: partition, account, time). */
export interface SlurmJobOptions {
  /** `--job-name`; default `loclab-vllm`. */
  jobName?: string;
  partition?: string;
  account?: string;
  /** `--time`, e.g. `12:00:00`; default the partition's. */
  time?: string;
  /**
   * GPUs per server (`--gpus=N`, Slurm then sets `CUDA_VISIBLE_DEVICES`); default each spec's
   * tensor × data parallel size (4×L4 with tensor parallel 4: one job of 4 GPUs). 0 asks for
   * none (a stand-in on a node without GPUs).
   */
  gpusPerServer?: number;
  cpusPerServer?: number;
  /** `--mem`, e.g. `64G`. */
  memory?: string;
  /** Where each server's output goes: `--output` (Slurm's `%A` job, `%a` array task); default `loclab-vllm-%A_%a.log` in the submit folder. */
  output?: string;
  /** Extra `#SBATCH` lines, verbatim (e.g. `--constraint=l4`). */
  extra?: readonly string[];
}

/**
 * The sbatch script that starts `vllm serve` for each spec, from @loclab/vllm's own command
 * builder (`vllmServeArgs`): one job for one server, a job array (`--array=0-(n-1)`, one task
 * per server) for several, each task running its spec by `SLURM_ARRAY_TASK_ID`. Slurm allocates
 * the GPUs, so a spec's own `gpus` must be empty (its `CUDA_VISIBLE_DEVICES` would override
 * Slurm's); every server of an array asks for the same resources (Slurm's rule), so their
 * parallel sizes must match. The server is `exec`ed, so `scancel` signals it directly. Pure.
 */
export function renderSbatchScript(specs: readonly VllmServerSpec[], options: SlurmJobOptions = {}): string {
  if (specs.length === 0) throw new Error("renderSbatchScript: no server spec");
  specs.forEach((spec, i) => {
    if (spec.gpus.length > 0)
      throw new Error(
        `servers[${i}].gpus: under Slurm the GPUs are Slurm's to allocate (it sets CUDA_VISIBLE_DEVICES); leave gpus empty`,
      );
    if (spec.launcher.kind !== "process")
      throw new Error(`servers[${i}].launcher: a Slurm job runs vllm as a process (launcher.kind "process")`);
  });
  const sizes = new Set(specs.map((spec) => spec.tensorParallelSize * spec.dataParallelSize));
  if (sizes.size > 1 && options.gpusPerServer === undefined)
    throw new Error(
      `servers ask for different GPU counts (${[...sizes].join(", ")}): a job array gives each task the same; submit them apart`,
    );
  const gpus = options.gpusPerServer ?? [...sizes][0] ?? 1;
  const array = specs.length > 1;
  const lines = [
    "#!/bin/bash",
    `#SBATCH --job-name=${options.jobName ?? "loclab-vllm"}`,
    ...(array ? [`#SBATCH --array=0-${specs.length - 1}`] : []),
    "#SBATCH --nodes=1",
    "#SBATCH --ntasks=1",
    ...(gpus > 0 ? [`#SBATCH --gpus=${gpus}`] : []),
    ...(options.cpusPerServer ? [`#SBATCH --cpus-per-task=${options.cpusPerServer}`] : []),
    ...(options.memory ? [`#SBATCH --mem=${options.memory}`] : []),
    ...(options.partition ? [`#SBATCH --partition=${options.partition}`] : []),
    ...(options.account ? [`#SBATCH --account=${options.account}`] : []),
    ...(options.time ? [`#SBATCH --time=${options.time}`] : []),
    `#SBATCH --output=${options.output ?? "loclab-vllm-%A_%a.log"}`,
    ...(options.extra ?? []).map((line) => `#SBATCH ${line}`),
    "# Written by loclab (@loclab/vllm renderSbatchScript): one vLLM server per task.",
    "set -euo pipefail",
    `case "\${SLURM_ARRAY_TASK_ID:-0}" in`,
  ];
  specs.forEach((spec, i) => {
    const executable = spec.launcher.kind === "process" ? spec.launcher.executable : "vllm";
    lines.push(`  ${i}) exec ${shellCommand(executable, vllmServeArgs(spec), vllmServeEnv(spec))} ;;`);
  });
  lines.push(`  *) echo "no server for array task \${SLURM_ARRAY_TASK_ID}" >&2; exit 2 ;;`, "esac", "");
  return lines.join("\n");
}
