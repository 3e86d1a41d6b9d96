import {
  parseVllmServerSpec,
  baseURLOf,
  servedName,
  type VllmServerSpec,
  type VllmServerSpecInput,
} from "./server-spec.js";

export interface FleetPlanOptions {
  /** `gpu` (when absent) or `cpu`: vLLM's CPU build, each server bound to its own cores. */
  device?: "gpu" | "cpu";
  /** GPUs on the host; 4 for 4×L4. Only for `gpu`. */
  gpus?: number;
  /** Cores the fleet may use (0…cpus−1), split evenly between `servers`. Only for `cpu`. */
  cpus?: number;
  /** Servers of a CPU fleet; default 1. */
  servers?: number;
  /** The KV cache of each CPU server, in GiB; default 2. */
  kvCacheGiB?: number;
  /** `per-gpu`: one server per GPU (data parallel across servers, the runner balances); `tp`: one server over all GPUs (tensor parallel). */
  layout?: "per-gpu" | "tp";
  /** Port of the first server; the others follow. */
  basePort?: number;
  /** Everything else of each server's spec (model, adapters, parser, launcher…). */
  server: Omit<VllmServerSpecInput, "gpus" | "port" | "tensorParallelSize">;
  /** Slots the runner may use per server; default 16 per GPU a server holds. */
  maxConcurrencyPerGpu?: number;
  /** Slots the runner may use per CPU server; default 2. */
  maxConcurrencyPerCpuServer?: number;
}

export interface FleetPlan {
  servers: VllmServerSpec[];
  /** The runner's endpoint pool for this fleet (`endpoints` of a run spec). */
  endpoints: Array<{ baseURL: string; model: string; maxConcurrency: number }>;
}

/**
 * Plans a fleet on one host, and the runner's endpoints for it. Pure.
 * - GPU: one server per GPU (`per-gpu`, ports basePort…basePort+gpus−1) or one with tensor
 *   parallelism over all (`tp`).
 * - CPU (vLLM's CPU build): `servers` servers, each bound to its own `cpus / servers` cores
 *   (server i to cores i·k…i·k+k−1) with its own KV cache; `layout` does not apply.
 */
export function planFleet(options: FleetPlanOptions): FleetPlan {
  const basePort = options.basePort ?? 8000;
  if (options.device === "cpu") return planCpuFleet(options, basePort);
  const gpus = options.gpus ?? 4;
  if (!Number.isInteger(gpus) || gpus < 1) throw new RangeError(`gpus must be a positive integer, not ${gpus}`);
  const perGpu = options.maxConcurrencyPerGpu ?? 16;
  const servers =
    options.layout === "tp"
      ? [
          parseVllmServerSpec({
            ...options.server,
            gpus: range(gpus),
            port: basePort,
            tensorParallelSize: gpus,
          }),
        ]
      : range(gpus).map((gpu) =>
          parseVllmServerSpec({ ...options.server, gpus: [gpu], port: basePort + gpu, tensorParallelSize: 1 }),
        );
  const endpoints = servers.map((server) => ({
    baseURL: baseURLOf(server),
    model: servedName(server),
    maxConcurrency: perGpu * server.gpus.length,
  }));
  return { servers, endpoints };
}

function planCpuFleet(options: FleetPlanOptions, basePort: number): FleetPlan {
  const count = options.servers ?? 1;
  const cpus = options.cpus;
  if (cpus === undefined) throw new RangeError("a CPU fleet needs cpus: the cores it may use (e.g. 2)");
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`servers must be a positive integer, not ${count}`);
  if (!Number.isInteger(cpus) || cpus < count)
    throw new RangeError(`cpus must be an integer of at least one per server (${count}), not ${cpus}`);
  if (options.gpus !== undefined) throw new RangeError("gpus: a CPU fleet takes no GPUs (give cpus and servers)");
  const each = Math.floor(cpus / count);
  const servers = range(count).map((index) =>
    parseVllmServerSpec({
      ...options.server,
      device: "cpu",
      cpu: {
        threads: each === 1 ? String(index * each) : `${index * each}-${index * each + each - 1}`,
        kvCacheGiB: options.kvCacheGiB ?? 2,
      },
      port: basePort + index,
      tensorParallelSize: 1,
    }),
  );
  const endpoints = servers.map((server) => ({
    baseURL: baseURLOf(server),
    model: servedName(server),
    maxConcurrency: options.maxConcurrencyPerCpuServer ?? 2,
  }));
  return { servers, endpoints };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
