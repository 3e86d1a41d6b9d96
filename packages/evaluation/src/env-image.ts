import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { buildImage } from "./build-image.js";
import { contentHash } from "./content-hash.js";
import type { EnvironmentPlan } from "./environment-plan.js";
import { ImageBuildError } from "./image-build-error.js";
import { envImageName } from "./image-names.js";
import { findImage, type ImageRef } from "./image-ref.js";
import { hostPipWheel } from "./host-pip.js";

/**
 * Pins for every pip run, builds included (PIP_CONSTRAINT reaches the isolated build
 * environments too): setuptools 70 (June 2024) removed `setuptools.dep_util` and other modules
 * that the Lite repositories' setup scripts import; the harness's images were built before it.
 */
export const DEFAULT_BUILD_CONSTRAINTS = ["setuptools<70"] as const;

/**
 * Wheels every isolated build may ask for (setuptools' editable backend asks for `wheel`),
 * kept in the image's wheel folder (not installed, but pip: Debian bookworm's pip 23.0 does not
 * read the newer wheels' metadata, so the image's pip is upgraded to the host's first; without it
 * a wheel in the folder is "not found": pytest's setuptools-scm).
 */
export const BUILD_TOOLS = ["setuptools", "wheel", "pip"] as const;

/**
 * The constraints that apply to a plan: a default pin is dropped for a package the plan's own
 * requirements pin exactly (flask 2.3's requirements pin setuptools==70.0.0).
 */
export function effectiveConstraints(plan: EnvironmentPlan, constraints: readonly string[]): string[] {
  const name = (line: string) =>
    /^[A-Za-z0-9_.-]+/
      .exec(line.trim())?.[0]
      .toLowerCase()
      .replace(/[-_.]+/g, "-") ?? "";
  const pinned = new Set(plan.requirements.filter((line) => /==/.test(line)).map(name));
  return constraints.filter((line) => !pinned.has(name(line)));
}

export interface EnvImageOptions {
  /** Constraints for every pip run on the host and in the image; default DEFAULT_BUILD_CONSTRAINTS. */
  constraints?: readonly string[];
  /** Where downloaded wheels are kept between runs; default ~/.cache/loclab/wheels. */
  wheelCache?: string;
  /** The host's Python that downloads the wheels (its minor version must be the image's). */
  hostPython?: string;
  onProgress?: (line: string) => void;
}

/**
 * The testbed environment of loclab's images is the image's system Python (the harness's is
 * conda's "testbed" env): packages go to /usr/local (PEP 668's guard lifted), ahead of Debian's
 * own in sys.path. A virtual environment was tried and dropped: tox-current-env (sphinx's test
 * command) links the interpreter's real path, which leaves a virtual environment's packages
 * behind; the system scripts (/usr/bin/pytest) did not see them either.
 */
export const IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/**
 * The env image of a repository × version: the plan's requirements built into wheels on the
 * host (`pip wheel`: the machine reaches the Python package index, the build does not), then
 * installed offline into the base image's Python (over the base's pytest when the plan pins one). The wheels stay in the image as
 * pip's only index (PIP_NO_INDEX, PIP_FIND_LINKS), so the instance's `pip install -e .` and the
 * eval script's re-install find the build requirements offline. Named and reused by the hash
 * of the base image's id and the requirement lines.
 */
export async function ensureEnvImage(
  docker: Docker,
  base: ImageRef,
  plan: EnvironmentPlan,
  options: EnvImageOptions = {},
): Promise<ImageRef> {
  const constraints = effectiveConstraints(plan, options.constraints ?? DEFAULT_BUILD_CONSTRAINTS);
  const hash = contentHash({
    kind: "loclab-swe-env",
    version: 5,
    base: base.id,
    stages: plan.stages,
    constraints,
    buildTools: BUILD_TOOLS,
  });
  const name = envImageName(plan.repo, plan.version, hash);
  const existing = await findImage(docker, name);
  if (existing) return existing;
  const log = options.onProgress ?? (() => {});
  const imagePython = base.labels["loclab.python"] ?? "";
  const hostPython = options.hostPython ?? "python3";
  const host = spawnSync(hostPython, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], {
    encoding: "utf8",
  });
  if (host.status !== 0)
    throw new ImageBuildError(name, `${hostPython} does not run on the host (it downloads the wheels)`);
  const minor = (version: string) => version.split(".").slice(0, 2).join(".");
  if (minor(host.stdout.trim()) !== minor(imagePython)) {
    throw new ImageBuildError(
      name,
      `the host's ${hostPython} is ${host.stdout.trim()} but the image's Python is ${imagePython}: wheels must be for the image's version`,
    );
  }
  const wheels = join(options.wheelCache ?? join(homedir(), ".cache", "loclab", "wheels"), hash.slice(0, 32));
  if (!existsSync(join(wheels, ".complete"))) {
    log(
      `env image ${name}: pip wheel ${plan.requirements.length} requirements in ${plan.stages.length} stage(s) on the host`,
    );
    await rm(wheels, { recursive: true, force: true });
    await mkdir(wheels, { recursive: true });
    await writeFile(join(wheels, "constraints.txt"), `${constraints.join("\n")}\n`);
    for (const [index, stage] of plan.stages.entries()) {
      await writeFile(join(wheels, `requirements-${index + 1}.txt`), `${stage.join("\n")}\n`);
      await hostPipWheel(
        hostPython,
        wheels,
        ["--find-links", wheels, "--requirement", join(wheels, `requirements-${index + 1}.txt`)],
        { PIP_CONSTRAINT: join(wheels, "constraints.txt") },
        name,
        `stage ${index + 1} of the environment`,
      );
    }
    await writeFile(join(wheels, "build-tools.txt"), `${BUILD_TOOLS.join("\n")}\n`);
    await hostPipWheel(
      hostPython,
      wheels,
      ["--find-links", wheels, "--requirement", join(wheels, "build-tools.txt")],
      { PIP_CONSTRAINT: join(wheels, "constraints.txt") },
      name,
      "the build tools",
    );
    await writeFile(join(wheels, ".complete"), "");
  }
  const context = await mkdtemp(join(tmpdir(), "loclab-env-"));
  try {
    await cp(wheels, join(context, "wheels"), { recursive: true });
    await rm(join(context, "wheels", ".complete"), { force: true });
    const count = (await readdir(join(context, "wheels"))).filter((file) => file.endsWith(".whl")).length;
    const dockerfile = [
      `FROM ${base.name}`,
      "COPY wheels /opt/loclab/wheels",
      `RUN python3 -m pip install --break-system-packages --no-index --find-links /opt/loclab/wheels --upgrade pip`,
      `ENV PATH=${IMAGE_PATH} PIP_NO_INDEX=1 PIP_FIND_LINKS=/opt/loclab/wheels PIP_CONSTRAINT=/opt/loclab/wheels/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_BREAK_SYSTEM_PACKAGES=1`,
      // One pip install per stage, in the harness's order (a later stage may move an earlier pin).
      ...plan.stages.map(
        (_, index) =>
          `RUN python3 -m pip install --no-build-isolation -r /opt/loclab/wheels/requirements-${index + 1}.txt`,
      ),
      "",
    ].join("\n");
    await writeFile(join(context, "Dockerfile"), dockerfile);
    log(`env image ${name}: docker build (${count} wheels, no network)`);
    return await buildImage(docker, {
      name,
      context,
      entries: ["Dockerfile", "wheels"],
      labels: {
        "loclab.kind": "env",
        "loclab.repo": plan.repo,
        "loclab.version": plan.version,
        "loclab.base": base.id,
        "loclab.env-hash": hash,
        "loclab.requested-python": plan.requestedPython,
        "loclab.python": imagePython,
        "loclab.sources": plan.sources.join(" "),
        "loclab.constraints": JSON.stringify(constraints),
      },
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
