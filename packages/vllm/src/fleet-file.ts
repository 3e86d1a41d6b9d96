import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { FleetPlanOptions } from "./fleet.js";

/**
 * A fleet as a JSON file (`loclab vllm plan|up --spec FILE`): the options of `planFleet`, every
 * field optional (the CLI's flags override only the fields they are given for, and defaults
 * fill the rest). `server` is checked when the plan is made (`VllmServerSpecSchema`).
 */
export const FleetFileSchema = z.strictObject({
  device: z.enum(["gpu", "cpu"]).optional(),
  gpus: z.number().int().min(1).optional(),
  cpus: z.number().int().min(1).optional(),
  servers: z.number().int().min(1).optional(),
  kvCacheGiB: z.number().positive().optional(),
  layout: z.enum(["per-gpu", "tp"]).optional(),
  basePort: z.number().int().min(1).max(65535).optional(),
  maxConcurrencyPerGpu: z.number().int().min(1).optional(),
  maxConcurrencyPerCpuServer: z.number().int().min(1).optional(),
  server: z.record(z.string(), z.unknown()).optional(),
});
export type FleetFile = z.infer<typeof FleetFileSchema>;

/** Reads a fleet file; errors name the file and the field (`fleet.json: gpus: …`). */
export async function readFleetFile(path: string): Promise<FleetFile> {
  const text = await readFile(path, "utf8").catch((error: Error) => {
    throw new Error(`${path}: ${error.message}`);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path}: not JSON: ${(error as Error).message}`);
  }
  const parsed = FleetFileSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `${path}: ${parsed.error.issues.map((issue) => `${issue.path.map(String).join(".") || "(file)"}: ${issue.message}`).join("; ")}`,
    );
  return parsed.data;
}

/**
 * The plan's options from a fleet file and the fields given on the command line: a given flag
 * wins, a field of the file comes next, the documented default last (gpu, 4 GPUs, per-gpu,
 * port 8000). Pure.
 */
export function fleetPlanOptions(file: FleetFile, given: Partial<FleetFile>): FleetPlanOptions {
  const merged: Record<string, unknown> = { ...file };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) merged[key] = value;
  const { device = "gpu", layout = "per-gpu", basePort = 8000, ...rest } = merged as FleetFile;
  return {
    ...rest,
    device,
    layout,
    basePort,
    ...(device === "gpu" ? { gpus: rest.gpus ?? 4 } : {}),
    server: { ...(file.server ?? {}), ...(given.server ?? {}) } as FleetPlanOptions["server"],
  } as FleetPlanOptions;
}
