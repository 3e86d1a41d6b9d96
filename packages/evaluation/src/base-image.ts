import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type Docker from "dockerode";
import type { BuilderRoot } from "./builder-root.js";
import { defaultRootCache } from "./caches.js";
import { contentHash } from "./content-hash.js";
import { baseImageName } from "./image-names.js";
import { ImageBuildError } from "./image-build-error.js";
import { findImage, type ImageRef } from "./image-ref.js";
import { type LocalPython, majorMinor } from "./python-choice.js";

/** What goes into the base image: a Debian root file system with Python, pip, git and compilers. */
export interface BaseImageRecipe {
  suite: string;
  variant: string;
  packages: readonly string[];
  /** A CPython on this machine that becomes the image's python3 (the suite's stays beside it). */
  localPython?: LocalPython;
}

/** The Debian packages of every base image, whatever the suite. */
export const BASE_PACKAGES: readonly string[] = [
  // python-is-python3 for the specs' `python -m pip …`, patch for the harness's third fallback,
  // setuptools and wheel so that a repository installs without build isolation (no network),
  // a C compiler and Python's headers for repositories with extensions (astropy), as the
  // harness's conda images have. No Debian pytest: the harness's environments have only what
  // the spec installs (every spec that tests with pytest pins one), and Debian's python3-pytest
  // brought python3-py, whose `py` package a pinned pytest 7's `py.py` shim must replace
  // (pylint 2.13–2.15: pytest-benchmark's `import py.io` failed on the wrong one).
  "python3",
  "python-is-python3",
  "python3-pip",
  "python3-setuptools",
  "python3-wheel",
  "python3-dev",
  "build-essential",
  "git",
  "patch",
  "ca-certificates",
];

/** The recipe of a suite's base image (minbase, BASE_PACKAGES), with a local Python if given. */
export function baseRecipe(suite: string, localPython?: LocalPython): BaseImageRecipe {
  return { suite, variant: "minbase", packages: BASE_PACKAGES, ...(localPython ? { localPython } : {}) };
}

/**
 * Where a base image's Python puts console scripts (pytest): /usr/local/bin for the suite's own
 * (pip's Debian scheme), the prefix's bin for a local Python; ahead of the rest of PATH.
 */
export function basePythonBin(recipe: BaseImageRecipe): string | undefined {
  return recipe.localPython ? join(recipe.localPython.prefix, "bin") : undefined;
}

/** bookworm's: Python 3.11. */
export const DEFAULT_BASE_RECIPE: BaseImageRecipe = baseRecipe("bookworm");

export interface BaseImageOptions {
  recipe?: BaseImageRecipe;
  /** The Debian archive debootstrap reads; default http://deb.debian.org/debian. */
  mirror?: string;
  /** Where root file systems are kept between runs; default ~/.cache/loclab/roots. */
  rootCache?: string;
  onProgress?: (line: string) => void;
}

/** A base image and its root file system on the host (the wheel builder). */
export interface BaseImage {
  image: ImageRef;
  builder: BuilderRoot;
  recipe: BaseImageRecipe;
}

/**
 * The base image of a recipe, built once: `debootstrap` a Debian root file system on the host
 * (root needed; ≈ 1–2 min here), kept in the root cache (the wheel builder runs in it, and the
 * next engine, a CI run's fresh data root, imports it in seconds instead of bootstrapping
 * again), then `docker import`ed with the recipe and Python version as labels. An image with the
 * recipe's name is reused as it is; a root missing beside it is exported from the image.
 */
export async function ensureBaseImage(docker: Docker, options: BaseImageOptions = {}): Promise<BaseImage> {
  const recipe = options.recipe ?? DEFAULT_BASE_RECIPE;
  const hash = baseRecipeHash(recipe);
  const name = baseImageName(hash);
  const log = options.onProgress ?? (() => {});
  const folder = join(options.rootCache ?? defaultRootCache(), hash.slice(0, 16));
  let image = await findImage(docker, name);
  let rooted = await readRoot(folder);
  if (!rooted) {
    if (process.getuid?.() !== 0)
      throw new ImageBuildError(
        name,
        "debootstrap and the wheel builder need root (run as root, or build the base image elsewhere and `docker load` it)",
      );
    const local = recipe.localPython;
    // A local Python goes into a copy of the suite's own root (made or reused first).
    const plain =
      local && !image ? await ensureBaseImage(docker, { ...options, recipe: baseRecipe(recipe.suite) }) : undefined;
    rooted = await makeRoot(folder, name, async (root) => {
      if (image) {
        log(`base image ${name}: exporting its root file system to ${folder}`);
        await exportImage(docker, image, root);
      } else if (local && plain) {
        log(`base image ${name}: ${recipe.suite}'s root with the local Python ${local.version} from ${local.prefix}`);
        await rm(root, { recursive: true, force: true });
        await run("cp", ["-a", plain.builder.root, root], name);
        await installLocalPython(root, local, name);
      } else await bootstrap(recipe, root, name, options.mirror, log);
    });
  }
  if (!image) {
    log(`base image ${name}: docker import from ${folder}`);
    await importRoot(docker, rooted.root, name, {
      "loclab.kind": "base",
      "loclab.recipe": JSON.stringify(recipe),
      "loclab.recipe-hash": hash,
      "loclab.suite": recipe.suite,
      "loclab.python": rooted.python,
      ...(recipe.localPython ? { "loclab.python-source": `local ${recipe.localPython.prefix}` } : {}),
    });
    image = await findImage(docker, name);
    if (!image) throw new ImageBuildError(name, "docker import finished but the image is not there");
  }
  return { image, builder: rooted, recipe };
}

/** What names a recipe's base image and its kept root. */
export function baseRecipeHash(recipe: BaseImageRecipe): string {
  return contentHash({ kind: "loclab-swe-base", version: 3, recipe });
}

/** The base image's name for a recipe (`loclab-swe/base:<hash>`). */
export function baseImageFor(recipe: BaseImageRecipe): string {
  return baseImageName(baseRecipeHash(recipe));
}

/** A complete root in the cache: `<folder>/root` and `<folder>/complete.json` (its Python). */
async function readRoot(folder: string): Promise<BuilderRoot | undefined> {
  try {
    const complete = JSON.parse(await readFile(join(folder, "complete.json"), "utf8")) as { python: string };
    return { root: join(folder, "root"), python: complete.python };
  } catch {
    return undefined;
  }
}

/**
 * Fills a fresh folder beside the cache entry and renames it into place, so that a crash leaves
 * no half root that looks complete, and of two processes making the same root one wins.
 */
async function makeRoot(folder: string, image: string, fill: (root: string) => Promise<void>): Promise<BuilderRoot> {
  await mkdir(dirname(folder), { recursive: true });
  const work = await mkdtemp(`${folder}.partial-`);
  try {
    const root = join(work, "root");
    await mkdir(root);
    await fill(root);
    for (const dir of ["proc", "sys", "dev/pts"])
      if (existsSync(join(root, dir))) spawnSync("umount", ["-l", join(root, dir)]);
    const python = spawnSync(
      "chroot",
      [root, "python3", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
      { encoding: "utf8" },
    );
    if (python.status !== 0)
      throw new ImageBuildError(image, `python3 does not run in the new root: ${python.stderr.trim()}`);
    // The builder binds the host's resolv.conf over this file; it must exist.
    if (!existsSync(join(root, "etc", "resolv.conf"))) await writeFile(join(root, "etc", "resolv.conf"), "");
    await writeFile(join(work, "complete.json"), `${JSON.stringify({ python: python.stdout.trim() })}\n`);
    try {
      await rename(work, folder);
    } catch {
      // Another process made it first: keep theirs.
      await rm(work, { recursive: true, force: true });
    }
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  const made = await readRoot(folder);
  if (!made) throw new ImageBuildError(image, `the root in ${folder} is not complete`);
  return made;
}

async function bootstrap(
  recipe: BaseImageRecipe,
  root: string,
  image: string,
  mirror: string | undefined,
  log: (line: string) => void,
): Promise<void> {
  if (spawnSync("debootstrap", ["--version"]).error)
    throw new ImageBuildError(image, "debootstrap is not installed (Debian: apt-get install debootstrap)");
  log(`base image ${image}: debootstrap ${recipe.suite} (${recipe.packages.length} packages)`);
  await runLogged(
    "debootstrap",
    [
      `--variant=${recipe.variant}`,
      `--include=${recipe.packages.join(",")}`,
      recipe.suite,
      root,
      mirror ?? "http://deb.debian.org/debian",
    ],
    image,
    log,
  );
}

/** A command that must succeed, its stderr in the error. */
async function run(command: string, args: readonly string[], image: string): Promise<void> {
  const done = spawnSync(command, args, { encoding: "utf8" });
  if (done.status !== 0)
    throw new ImageBuildError(
      image,
      `${command} ${args.join(" ")} failed: ${(done.stderr || done.error?.message || "").trim()}`,
    );
}

/**
 * A local CPython into a root at its own absolute path, its site-packages emptied and refilled
 * by its own ensurepip (pip and setuptools as that Python ships them: none of the packages a
 * user installed there), and named python3, python, pip by /usr/local/bin ahead of the suite's.
 */
async function installLocalPython(root: string, local: LocalPython, image: string): Promise<void> {
  const target = join(root, local.prefix);
  await mkdir(dirname(target), { recursive: true });
  await run("cp", ["-a", local.prefix, target], image);
  const minor = majorMinor(local.version);
  const site = join(target, "lib", `python${minor}`, "site-packages");
  await rm(site, { recursive: true, force: true });
  await mkdir(site);
  await run("chroot", [root, join(local.prefix, "bin", "python3"), "-m", "ensurepip", "--default-pip"], image);
  for (const [link, to] of [
    ["python3", "python3"],
    ["python", "python3"],
    [`python${minor}`, `python${minor}`],
    ["pip3", "pip3"],
    ["pip", "pip3"],
  ] as const) {
    await rm(join(root, "usr", "local", "bin", link), { force: true });
    await run("ln", ["-s", join(local.prefix, "bin", to), join(root, "usr", "local", "bin", link)], image);
  }
}

/** `docker create` + `docker export`, unpacked into `root`. */
async function exportImage(docker: Docker, image: ImageRef, root: string): Promise<void> {
  const container = await docker.createContainer({ Image: image.id, Cmd: ["/bin/true"], NetworkDisabled: true });
  try {
    const stream = (await container.export()) as unknown as NodeJS.ReadableStream;
    const tar = spawn("tar", ["--numeric-owner", "-x", "-C", root], { stdio: ["pipe", "ignore", "pipe"] });
    stream.pipe(tar.stdin);
    const code = await new Promise<number | null>((resolve) => tar.on("close", resolve));
    if (code !== 0) throw new ImageBuildError(image.name, `unpacking the exported image exited ${code}`);
  } finally {
    await container.remove({ force: true });
  }
}

async function importRoot(docker: Docker, root: string, name: string, labels: Record<string, string>): Promise<void> {
  const tar = spawn("tar", ["--numeric-owner", "-C", root, "-c", "."], { stdio: ["ignore", "pipe", "pipe"] });
  const [repository, tag] = name.split(":") as [string, string];
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
