import { readFile } from "node:fs/promises";
import { z } from "zod";
import { VllmServerSpecSchema } from "./server-spec.js";

/** What `loclab vllm slurm submit --servers FILE` and `loclab run --slurm FILE` read. */
export const SlurmServersFileSchema = z.strictObject({
  /** The servers, one Slurm task each (a job array for several). */
  servers: z.array(VllmServerSpecSchema).min(1),
  /** How the job is asked of Slurm. */
  job: z
    .strictObject({
      jobName: z.string().min(1).optional(),
      partition: z.string().min(1).optional(),
      account: z.string().min(1).optional(),
      time: z.string().min(1).optional(),
      gpusPerServer: z.number().int().nonnegative().optional(),
      cpusPerServer: z.number().int().positive().optional(),
      memory: z.string().min(1).optional(),
      output: z.string().min(1).optional(),
      extra: z.array(z.string().min(1)).optional(),
    })
    .default({}),
  /** Each server's slots in a run's pool (the endpoint's `maxConcurrency`). */
  maxConcurrency: z.number().int().positive().max(1024).default(1),
});
export type SlurmServersFile = z.infer<typeof SlurmServersFileSchema>;

/** Reads and checks a servers file; errors name the file and the field. */
export async function readSlurmServersFile(path: string): Promise<SlurmServersFile> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new Error(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const parsed = SlurmServersFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue?.path.join(".") || "(file)"}: ${issue?.message}`);
  }
  return parsed.data;
}
