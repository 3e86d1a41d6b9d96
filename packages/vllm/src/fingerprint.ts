import { adapterDigest } from "./lora.js";
import { vllmServeArgs } from "./serve-args.js";
import { servedName, type VllmServerSpec } from "./server-spec.js";

/** What identifies a server's answers, for the run manifest. */
export interface VllmFingerprint {
  /** `/version` as the server reported it; null when it did not answer. */
  vllmVersion: string | null;
  model: string;
  revision: string | null;
  servedModelName: string;
  /** The exact `vllm serve` arguments. */
  args: string[];
  gpus: number[];
  /** `gpu` or `cpu` (the CPU build), with the CPU build's cores and KV cache. */
  device: "gpu" | "cpu";
  cpu: { threads: string; kvCacheGiB: number } | null;
  launcher: { kind: "process"; executable: string } | { kind: "docker"; image: string };
  adapters: Array<{ name: string; path: string; sha256: string | null }>;
}

export async function serverFingerprint(spec: VllmServerSpec, vllmVersion: string | null): Promise<VllmFingerprint> {
  return {
    vllmVersion,
    model: spec.model,
    revision: spec.revision ?? null,
    servedModelName: servedName(spec),
    args: vllmServeArgs(spec),
    gpus: spec.gpus,
    device: spec.device,
    cpu: spec.cpu ?? null,
    launcher:
      spec.launcher.kind === "process"
        ? { kind: "process", executable: spec.launcher.executable }
        : { kind: "docker", image: spec.launcher.image },
    adapters: await Promise.all(
      (spec.lora?.adapters ?? []).map(async (adapter) => ({ ...adapter, sha256: await adapterDigest(adapter.path) })),
    ),
  };
}
