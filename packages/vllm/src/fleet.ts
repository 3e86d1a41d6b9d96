import {
  parseVllmServerSpec,
  baseURLOf,
  servedName,
  type VllmServerSpec,
  type VllmServerSpecInput,
} from "./server-spec.js";

export interface FleetPlanOptions {
  /** GPUs on the host; 4 for 4×L4. */
  gpus: number;
  /** `per-gpu`: one server per GPU (data parallel across servers, the runner balances); `tp`: one server over all GPUs (tensor parallel). */
  layout: "per-gpu" | "tp";
  /** Port of the first server; the others follow. */
  basePort?: number;
  /** Everything else of each server's spec (model, adapters, parser, launcher…). */
  server: Omit<VllmServerSpecInput, "gpus" | "port" | "tensorParallelSize">;
  /** Slots the runner may use per server; default 16 per GPU a server holds. */
  maxConcurrencyPerGpu?: number;
}

export interface FleetPlan {
  servers: VllmServerSpec[];
  /** The runner's endpoint pool for this fleet (`endpoints` of a run spec). */
  endpoints: Array<{ baseURL: string; model: string; maxConcurrency: number }>;
}

/**
 * Plans a fleet on one host: four servers one per GPU (`per-gpu`, ports basePort…basePort+3)
 * or one with tensor parallelism over all (`tp`), and the runner's endpoints for it. Pure.
 */
export function planFleet(options: FleetPlanOptions): FleetPlan {
  if (!Number.isInteger(options.gpus) || options.gpus < 1)
    throw new RangeError(`gpus must be a positive integer, not ${options.gpus}`);
  const basePort = options.basePort ?? 8000;
  const perGpu = options.maxConcurrencyPerGpu ?? 16;
  const servers =
    options.layout === "tp"
      ? [
          parseVllmServerSpec({
            ...options.server,
            gpus: range(options.gpus),
            port: basePort,
            tensorParallelSize: options.gpus,
          }),
        ]
      : range(options.gpus).map((gpu) =>
          parseVllmServerSpec({ ...options.server, gpus: [gpu], port: basePort + gpu, tensorParallelSize: 1 }),
        );
  const endpoints = servers.map((server) => ({
    baseURL: baseURLOf(server),
    model: servedName(server),
    maxConcurrency: perGpu * server.gpus.length,
  }));
  return { servers, endpoints };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
