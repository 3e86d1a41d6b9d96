import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ARTIFACT_KINDS, writeJsonAtomic } from "@loclab/schemas";
import { z } from "zod";
import { VllmServerSpecSchema } from "./server-spec.js";
import type { VllmFingerprint } from "./fingerprint.js";

const HandleSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("process"), pid: z.number().int().positive() }),
  z.strictObject({ kind: z.literal("docker"), containerId: z.string().min(1), socketPath: z.string().optional() }),
]);

export const FleetStateSchema = z.strictObject({
  kind: z.literal(ARTIFACT_KINDS.vllmFleet),
  schemaVersion: z.literal(1),
  startedAt: z.string(),
  servers: z.array(
    z.strictObject({
      spec: VllmServerSpecSchema,
      handle: HandleSchema,
      logFile: z.string().optional(),
      fingerprint: z.custom<VllmFingerprint>().optional(),
    }),
  ),
  endpoints: z.array(
    z.strictObject({ baseURL: z.string(), model: z.string(), maxConcurrency: z.number().int().positive() }),
  ),
});
export type FleetState = z.infer<typeof FleetStateSchema>;

export const fleetFiles = {
  state: (dir: string) => join(dir, "fleet.json"),
  /** The runner's `endpoints`, ready to paste into a run spec. */
  endpoints: (dir: string) => join(dir, "endpoints.json"),
  log: (dir: string, index: number) => join(dir, `server-${index}.log`),
};

export async function writeFleetState(dir: string, state: FleetState): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [path, value] of [
    [fleetFiles.state(dir), state],
    [fleetFiles.endpoints(dir), state.endpoints],
  ] as const) {
    await writeJsonAtomic(path, value);
  }
}

export async function readFleetState(dir: string): Promise<FleetState> {
  let text: string;
  try {
    text = await readFile(fleetFiles.state(dir), "utf8");
  } catch {
    throw new Error(`${fleetFiles.state(dir)}: no fleet state here (start one with loclab vllm up --state ${dir})`);
  }
  const parsed = FleetStateSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(
      `${fleetFiles.state(dir)}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
    );
  return parsed.data;
}
