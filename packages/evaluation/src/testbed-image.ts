import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { type BaseImageOptions, ensureBaseImage } from "./base-image.js";
import { buildImage } from "./build-image.js";
import type { ImageRef } from "./image-ref.js";

export interface TestbedImageInput {
  /** A folder on the host (a git checkout, its .git included) that becomes /testbed. */
  repository: string;
  name: string;
  labels?: Record<string, string>;
  /** The base image's options (its recipe, caches); default bookworm's. */
  base?: BaseImageOptions;
}

/**
 * An image of a local base with a repository folder at /testbed, where the harness's images
 * keep the task's repository: for a task that is not a benchmark row (the fixer's fixtures and
 * benchmarks), where `ensureInstanceImage` builds from a mirror at a base commit.
 */
export async function buildTestbedImage(docker: Docker, input: TestbedImageInput): Promise<ImageRef> {
  const base = await ensureBaseImage(docker, input.base ?? {});
  const context = await mkdtemp(join(tmpdir(), "loclab-testbed-"));
  try {
    await cp(input.repository, join(context, "testbed"), { recursive: true });
    await writeFile(join(context, "Dockerfile"), `FROM ${base.image.name}\nCOPY testbed /testbed\n`);
    return await buildImage(docker, {
      name: input.name,
      context,
      entries: ["Dockerfile", "testbed"],
      labels: { "loclab.kind": "testbed", ...input.labels },
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
