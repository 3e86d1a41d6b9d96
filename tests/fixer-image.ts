import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildTestbedImage } from "@loclab/evaluation";
import { commitFiles } from "@loclab/fixtures";
import type Docker from "dockerode";

/**
 * The fixer tests' task: a small repository at /testbed in an image of the evaluation's
 * bookworm base (git, Python, coreutils), committed as the base commit, with a bug the gold
 * change fixes (`add` subtracts) and a check that fails until then.
 */
export const FIXER_TASK_FILES = {
  "calc/__init__.py": "",
  "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
  "check.py": "from calc.ops import add, sub\n\nassert add(2, 3) == 5, add(2, 3)\nassert sub(5, 3) == 2\nprint('ok')\n",
  "README.md": "calc\n",
};

export interface FixerTestImage {
  image: string;
  /** The same repository on the host (a git checkout at the base commit), for the localizer's workspace. */
  repository: string;
  remove(): Promise<void>;
}

export async function buildFixerTestImage(docker: Docker, name: string): Promise<FixerTestImage> {
  const work = mkdtempSync(join(tmpdir(), "loclab-fixer-"));
  const repository = join(work, "testbed");
  mkdirSync(repository);
  // A binary file, committed with the rest.
  writeFileSync(join(repository, "blob.bin"), Buffer.from([0, 1, 2, 0, 255]));
  await commitFiles(repository, FIXER_TASK_FILES);
  const image = (await buildTestbedImage(docker, { repository, name: `loclab-test/${name}:${process.pid}` })).name;
  return {
    image,
    repository,
    async remove() {
      await docker
        .getImage(image)
        .remove({ force: true })
        .catch(() => undefined);
      rmSync(work, { recursive: true, force: true });
    },
  };
}
