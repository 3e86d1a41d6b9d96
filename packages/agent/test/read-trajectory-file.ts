import { readFile } from "node:fs/promises";
import {
  type TrajectoryHeaderLine,
  TrajectoryHeaderSchema,
  type TrajectoryStepLine,
  TrajectoryStepSchema,
} from "@loclab/schemas";

/**
 * Reads a trajectory the agent wrote, checking every line against the log contract in
 * @loclab/schemas (the same schemas the analysis package reads with), and the step numbers.
 */
export async function readTrajectoryFile(
  path: string,
): Promise<{ header: TrajectoryHeaderLine; steps: TrajectoryStepLine[] }> {
  const [head, ...rest] = (await readFile(path, "utf8")).split("\n").filter((line) => line !== "");
  const header = TrajectoryHeaderSchema.parse(JSON.parse(head ?? "null"));
  const steps = rest.map((line) => TrajectoryStepSchema.parse(JSON.parse(line)));
  steps.forEach((step, index) => {
    if (step.step !== index) throw new Error(`${path}: step ${step.step} at position ${index}`);
  });
  return { header, steps };
}
