import { servedName, type VllmServerSpec } from "./server-spec.js";

/**
 * The exact arguments of `vllm serve` for a spec, in a fixed order (so the fingerprint of two
 * equal specs is equal): the model, then each flag vLLM documents for it. Pure.
 */
export function vllmServeArgs(spec: VllmServerSpec): string[] {
  const args = [
    "serve",
    spec.model,
    "--served-model-name",
    servedName(spec),
    "--host",
    spec.host,
    "--port",
    String(spec.port),
  ];
  if (spec.revision) args.push("--revision", spec.revision);
  args.push("--tensor-parallel-size", String(spec.tensorParallelSize));
  if (spec.dataParallelSize > 1) args.push("--data-parallel-size", String(spec.dataParallelSize));
  if (spec.dtype !== undefined) args.push("--dtype", spec.dtype);
  if (spec.maxModelLen !== undefined) args.push("--max-model-len", String(spec.maxModelLen));
  if (spec.gpuMemoryUtilization !== undefined) args.push("--gpu-memory-utilization", String(spec.gpuMemoryUtilization));
  if (spec.toolCallParser) args.push("--enable-auto-tool-choice", "--tool-call-parser", spec.toolCallParser);
  if (spec.lora) {
    args.push("--enable-lora");
    if (spec.lora.adapters.length > 0)
      args.push("--lora-modules", ...spec.lora.adapters.map((adapter) => `${adapter.name}=${adapter.path}`));
    args.push("--max-lora-rank", String(spec.lora.maxLoraRank));
  }
  args.push("--generation-config", spec.generationConfig);
  args.push(spec.enablePrefixCaching ? "--enable-prefix-caching" : "--no-enable-prefix-caching");
  if (spec.maxLogprobs !== undefined) args.push("--max-logprobs", String(spec.maxLogprobs));
  if (spec.seed !== undefined) args.push("--seed", String(spec.seed));
  if (spec.enforceEager) args.push("--enforce-eager");
  if (spec.structuredOutputs) {
    const { backend, disableAnyWhitespace } = spec.structuredOutputs;
    args.push(
      "--structured-outputs-config",
      JSON.stringify({
        ...(backend !== undefined ? { backend } : {}),
        ...(disableAnyWhitespace !== undefined ? { disable_any_whitespace: disableAnyWhitespace } : {}),
      }),
    );
  }
  args.push(...spec.extraArgs);
  return args;
}

/**
 * The server's environment beyond the caller's: the GPUs (or, for the CPU build, the bound
 * cores, as many OpenMP threads and the KV cache's GiB), runtime LoRA updates, the spec's own
 * variables (which win).
 */
export function vllmServeEnv(spec: VllmServerSpec): Record<string, string> {
  return {
    ...(spec.gpus.length > 0 ? { CUDA_VISIBLE_DEVICES: spec.gpus.join(",") } : {}),
    ...(spec.cpu
      ? {
          VLLM_CPU_OMP_THREADS_BIND: spec.cpu.threads,
          OMP_NUM_THREADS: String(coreCount(spec.cpu.threads)),
          VLLM_CPU_KVCACHE_SPACE: String(spec.cpu.kvCacheGiB),
        }
      : {}),
    ...(spec.lora?.runtimeUpdates ? { VLLM_ALLOW_RUNTIME_LORA_UPDATING: "True" } : {}),
    ...spec.env,
  };
}

/** The command as a user would type it on the GPU host (shell-quoted), for plans and logs. */
export function shellCommand(executable: string, args: readonly string[], env: Record<string, string> = {}): string {
  const quote = (word: string) => (/^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
  const prefix = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
  return [...prefix, quote(executable), ...args.map(quote)].join(" ");
}

/** How many cores a bind list names (`0-1,4` is 3). */
export function coreCount(threads: string): number {
  return threads.split(",").reduce((sum, part) => {
    const [from, to] = part.split("-").map(Number);
    return sum + (to === undefined ? 1 : to! - from! + 1);
  }, 0);
}
