import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { contentHash } from "./content-hash.js";
import { baseImageName } from "./image-names.js";
import { ImageBuildError } from "./image-build-error.js";
import { findImage, type ImageRef } from "./image-ref.js";

/** What goes into the base image: a Debian root file system with Python, pip, git and pytest. */
export interface BaseImageRecipe {
  suite: string;
  variant: string;
  packages: readonly string[];
}

export const DEFAULT_BASE_RECIPE: BaseImageRecipe = {
  suite: "bookworm",
  variant: "minbase",
  // python-is-python3 for the specs' `python -m pip …`, patch for the harness's third fallback,
  // setuptools and wheel so that a repository installs without build isolation (no network),
  // a C compiler and Python's headers for repositories with extensions (astropy), as the
  // harness's conda images have.
  packages: [
    "python3",
    "python-is-python3",
    "python3-pip",
    "python3-pytest",
    "python3-setuptools",
    "python3-wheel",
    "python3-dev",
    "build-essential",
    "git",
    "patch",
    "ca-certificates",
  ],
};

export interface BaseImageOptions {
  recipe?: BaseImageRecipe;
  /** The Debian archive debootstrap reads; default http://deb.debian.org/debian. */
  mirror?: string;
  onProgress?: (line: string) => void;
}

/**
 * The base image, built once per recipe: `debootstrap` a Debian root file system on the host
 * (root needed; ≈ 2 min here), `docker import` it with the recipe and Python version as
 * labels. An image with the recipe's name is reused as it is.
 */
export async function ensureBaseImage(docker: Docker, options: BaseImageOptions = {}): Promise<ImageRef> {
  const recipe = options.recipe ?? DEFAULT_BASE_RECIPE;
  const hash = contentHash({ kind: "loclab-swe-base", version: 1, recipe });
  const name = baseImageName(hash);
  const existing = await findImage(docker, name);
  if (existing) return existing;
  const log = options.onProgress ?? (() => {});
  if (process.getuid?.() !== 0)
    throw new ImageBuildError(
      name,
      "debootstrap needs root (run as root, or build the base image elsewhere and `docker load` it)",
    );
  if (spawnSync("debootstrap", ["--version"]).error)
    throw new ImageBuildError(name, "debootstrap is not installed (Debian: apt-get install debootstrap)");
  const work = await mkdtemp(join(tmpdir(), "loclab-base-"));
  const root = join(work, "root");
  try {
    log(`base image ${name}: debootstrap ${recipe.suite} (${recipe.packages.length} packages)`);
    await runLogged(
      "debootstrap",
      [
        `--variant=${recipe.variant}`,
        `--include=${recipe.packages.join(",")}`,
        recipe.suite,
        root,
        options.mirror ?? "http://deb.debian.org/debian",
      ],
      name,
      log,
    );
    const python = spawnSync(
      "chroot",
      [root, "python3", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
      { encoding: "utf8" },
    );
    if (python.status !== 0)
      throw new ImageBuildError(name, `python3 does not run in the new root: ${python.stderr.trim()}`);
    for (const dir of ["proc", "sys", "dev/pts"])
      if (existsSync(join(root, dir))) spawnSync("umount", ["-l", join(root, dir)]);
    log(`base image ${name}: docker import`);
    const tar = spawn("tar", ["--numeric-owner", "-C", root, "-c", "."], { stdio: ["ignore", "pipe", "pipe"] });
    const [repository, tag] = name.split(":") as [string, string];
    const labels = {
      "loclab.kind": "base",
      "loclab.recipe": JSON.stringify(recipe),
      "loclab.recipe-hash": hash,
      "loclab.python": python.stdout.trim(),
    };
    const changes = [
      "ENV LANG=C.UTF-8",
      "ENV TZ=Etc/UTC",
      'CMD ["/bin/bash"]',
      ...Object.entries(labels).map(([key, value]) => `LABEL ${key}=${JSON.stringify(value)}`),
    ];
    const stream = (await docker.importImage(
      tar.stdout as never,
      { repo: repository, tag, changes } as never,
    )) as unknown as NodeJS.ReadableStream;
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (error: Error | null) =>
        error ? reject(new ImageBuildError(name, error.message)) : resolve(),
      ),
    );
    const built = await findImage(docker, name);
    if (!built) throw new ImageBuildError(name, "docker import finished but the image is not there");
    return built;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function runLogged(command: string, args: string[], image: string, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const tail: string[] = [];
    const take = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
        if (/^I: (Retrieving|Validating|Installing|Configuring) [a-z]/.test(line) === false) log(`  ${line}`);
      }
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error) => reject(new ImageBuildError(image, `${command}: ${error.message}`)));
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new ImageBuildError(image, `${command} exited ${code}:\n${tail.join("\n")}`)),
    );
  });
}
