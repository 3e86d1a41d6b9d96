import { spawnSync } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import type { HarnessSpec } from "@loclab/grading";
import { buildImage } from "./build-image.js";
import { DEFAULT_BUILD_CONSTRAINTS } from "./env-image.js";
import { contentHash } from "./content-hash.js";
import { buildRequirements } from "./environment-plan.js";
import { BUILDER_WHEELS, builderPipWheel } from "./builder-pip.js";
import { type BuilderRoot, insideBuilder } from "./builder-root.js";
import { defaultPipCache } from "./caches.js";
import { ImageBuildError } from "./image-build-error.js";
import { instanceImageName } from "./image-names.js";
import { findImage, type ImageRef } from "./image-ref.js";
import { checkoutTestbed, nearestTag } from "./testbed.js";

export interface InstanceImageInput {
  instanceId: string;
  repo: string;
  baseCommit: string;
  spec: HarnessSpec;
  /** The local mirror's git directory (`<repos>/<owner>__<name>.git`). */
  mirrorGitDir: string;
  env: ImageRef;
  /** The base image's root, where the install's wheels are built with the image's Python. */
  builder: BuilderRoot;
}

/**
 * The harness's setup_repo.sh for a repository already checked out at /testbed: the spec's
 * pre_install (an `apt-get` line cannot run without network: it is echoed as skipped, and the
 * image's labels say so), its install, and the "SWE-bench" commit that makes the working tree
 * clean, so that what pre_install changed (sphinx's tox.ini) survives the eval script's resets.
 */
export function setupRepoScript(spec: HarnessSpec): { script: string; skipped: string[] } {
  const skipped: string[] = [];
  const lines = ["#!/bin/bash", "set -euxo pipefail", "cd /testbed"];
  for (const command of spec.pre_install ?? []) {
    if (/^\s*(apt-get|apt)\s/.test(command)) {
      skipped.push(command);
      lines.push(`: 'skipped (no network in the build): ${command.replace(/'/g, "'\\''")}'`);
    } else lines.push(command);
  }
  if (spec.install) lines.push(spec.install);
  lines.push(
    "git config --global user.email setup@swebench.config",
    "git config --global user.name SWE-bench",
    "git commit --allow-empty -am SWE-bench",
  );
  return { script: `${lines.join("\n")}\n`, skipped };
}

/**
 * What the spec's install command installs, as a pip requirement relative to the repository:
 * `.`, `.[test]`, `.[dev]` (quotes dropped); `.` for `python setup.py install`; undefined when
 * there is no install.
 */
export function installTarget(install: string | undefined): string | undefined {
  if (!install) return undefined;
  const pip = /pip install\s+(.*)$/.exec(install.split(/;|&&/)[0]!);
  if (!pip) return /setup\.py/.test(install) ? "." : undefined;
  for (const token of pip[1]!.split(/\s+/)) {
    const bare = token.replace(/^['"]|['"]$/g, "");
    if (bare === "." || bare.startsWith(".[")) return bare;
  }
  return undefined;
}

/** A tag as a PEP 440 version for setuptools-scm (`v2.10.0` → `2.10.0`, `sympy-1.1` → `1.1`). */
export function pretendVersion(tag: string | undefined): string | undefined {
  const match = tag ? /\d[\w.+-]*$/.exec(tag) : null;
  return match ? match[0] : undefined;
}

/**
 * The instance image: the env image plus the repository at its base commit from the local
 * mirror, set up by `setupRepoScript` (no network). Named and reused by the hash of the env
 * image's id, the commit and the setup script. A shallow checkout has no tags, so setuptools-
 * scm is told the version of the newest tag before the base commit.
 */
export async function ensureInstanceImage(
  docker: Docker,
  input: InstanceImageInput,
  options: {
    onProgress?: (line: string) => void;
    constraints?: readonly string[];
    pipCache?: string;
    /** Resolve the install's requirements from the index as of this time; none: today's index. */
    resolvedAsOf?: string;
  } = {},
): Promise<ImageRef> {
  const { script, skipped } = setupRepoScript(input.spec);
  const version = pretendVersion(await nearestTag(input.mirrorGitDir, input.baseCommit));
  // The env image's constraints (it dropped a default pin its requirements override).
  const constraints: readonly string[] = input.env.labels["loclab.constraints"]
    ? (JSON.parse(input.env.labels["loclab.constraints"]) as string[])
    : (options.constraints ?? DEFAULT_BUILD_CONSTRAINTS);
  const hash = contentHash({
    kind: "loclab-swe-instance",
    version: 6,
    constraints,
    env: input.env.id,
    commit: input.baseCommit,
    script,
    scmVersion: version,
    resolvedAsOf: options.resolvedAsOf ?? null,
  });
  const name = instanceImageName(input.instanceId, hash);
  const existing = await findImage(docker, name);
  if (existing) return existing;
  const context = await mkdtemp(join(tmpdir(), "loclab-instance-"));
  try {
    options.onProgress?.(
      `instance image ${name}: checkout ${input.baseCommit.slice(0, 12)} from ${input.mirrorGitDir}`,
    );
    await checkoutTestbed(input.mirrorGitDir, input.baseCommit, join(context, "testbed"));
    // The install's own dependencies (install_requires, the extras it names, its build
    // requirements) as wheels made in the builder from the same checkout: the build has no
    // network, and the env image has only the spec's packages.
    const target = installTarget(input.spec.install);
    await mkdir(join(context, "instance-wheels"), { recursive: true });
    if (target) {
      options.onProgress?.(`instance image ${name}: pip wheel ${target} with Python ${input.builder.python}`);
      await writeFile(join(context, "instance-wheels", "constraints.txt"), `${constraints.join("\n")}\n`);
      const wheels = join(context, "instance-wheels");
      // The repository's own build requirements at this commit too: isolated builds in the image
      // fetch them from the wheel folders (pytest's setuptools-scm[toml]).
      // From a copy with the spec's pre_install applied (sphinx's pins in setup.py), as the
      // image will install it; the copy is not what the image gets (pre_install runs there).
      const copy = join(context, "wheel-source");
      await cp(join(context, "testbed"), copy, { recursive: true });
      const pre = (input.spec.pre_install ?? []).filter((command) => !/^\s*(apt-get|apt)\s/.test(command));
      if (pre.length > 0) {
        const ran = spawnSync("bash", ["-euc", pre.join("\n")], { cwd: copy, encoding: "utf8" });
        if (ran.status !== 0)
          throw new ImageBuildError(
            name,
            `pre_install on the host copy failed: ${ran.stderr.trim().split("\n").slice(-3).join(" | ")}`,
          );
      }
      const build = buildRequirements(await readFile(join(copy, "pyproject.toml"), "utf8").catch(() => undefined));
      await builderPipWheel({
        builder: input.builder,
        wheels,
        binds: [{ host: copy, name: "source" }],
        pipCache: options.pipCache ?? defaultPipCache(),
        ...(options.resolvedAsOf ? { uploadedPriorTo: options.resolvedAsOf } : {}),
        args: [insideBuilder("source") + target.slice(1), ...build],
        env: {
          PIP_CONSTRAINT: `${BUILDER_WHEELS}/constraints.txt`,
          ...(version ? { SETUPTOOLS_SCM_PRETEND_VERSION: version } : {}),
        },
        image: name,
        what: "pip wheel of the repository's install",
      });
    }
    await writeFile(join(context, "setup_repo.sh"), script);
    await chmod(join(context, "setup_repo.sh"), 0o755);
    const dockerfile = [
      `FROM ${input.env.name}`,
      ...(version ? [`ENV SETUPTOOLS_SCM_PRETEND_VERSION=${version}`] : []),
      "COPY instance-wheels /opt/loclab/instance-wheels",
      'ENV PIP_FIND_LINKS="/opt/loclab/wheels /opt/loclab/instance-wheels"',
      "COPY testbed /testbed",
      "COPY setup_repo.sh /root/setup_repo.sh",
      "RUN /bin/bash /root/setup_repo.sh",
      "WORKDIR /testbed",
      "",
    ].join("\n");
    await writeFile(join(context, "Dockerfile"), dockerfile);
    return await buildImage(docker, {
      name,
      context,
      entries: ["Dockerfile", "setup_repo.sh", "instance-wheels", "testbed"],
      labels: {
        "loclab.kind": "instance",
        "loclab.instance": input.instanceId,
        "loclab.repo": input.repo,
        "loclab.commit": input.baseCommit,
        "loclab.env": input.env.id,
        "loclab.instance-hash": hash,
        ...(skipped.length ? { "loclab.skipped-pre-install": skipped.join(" ; ") } : {}),
      },
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
