import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { type BaseImage, basePythonBin } from "./base-image.js";
import { BUILDER_WHEELS, builderPipWheel } from "./builder-pip.js";
import { buildImage } from "./build-image.js";
import { sharedByKey } from "./build-slots.js";
import { defaultPipCache, defaultWheelCache } from "./caches.js";
import { contentHash } from "./content-hash.js";
import type { EnvironmentPlan } from "./environment-plan.js";
import { envImageName } from "./image-names.js";
import { ImageBuildError } from "./image-build-error.js";
import { findImage, type ImageRef } from "./image-ref.js";
import {
  HTTPBIN_DIR,
  httpbinCertificateCommand,
  HTTPBIN_TRUST_MODULE,
  NETWORK_STANDINS,
  type NetworkStandins,
  STANDINS_LABEL,
} from "./network-standins.js";
import type { ImagePython, PythonChoice } from "./python-choice.js";

/**
 * Pins for every pip run, builds included (PIP_CONSTRAINT reaches the isolated build
 * environments too): setuptools 70 (June 2024) removed `setuptools.dep_util` and other modules
 * that the Lite repositories' setup scripts import; the harness's images were built before it.
 * pip 26.2 stops passing PIP_CONSTRAINT to isolated builds (pip 26.0 warns so), which the pin
 * on setuptools needs.
 */
export const DEFAULT_BUILD_CONSTRAINTS = ["setuptools<70", "pip<26.2"] as const;

/**
 * The image's pip: the harness's images have pip 21.2–25.0 (conda's; 24.2 in most of its cached
 * environments), and pip 25.3 removed the fallback to `setup.py develop` for an editable install
 * whose build backend has no PEP 660 hook (pylint 2.15 builds with setuptools 62: "missing the
 * 'build_editable' hook", 3 Lite tasks). The builder runs a newer pip of its own (26.x, for
 * --uploaded-prior-to).
 */
export const IMAGE_PIP = "pip<25.3";

/**
 * Wheels every isolated build may ask for (setuptools' editable backend asks for `wheel`),
 * kept in the image's wheel folder (not installed, but pip: Debian bookworm's pip 23.0 does not
 * read the newer wheels' metadata, so the image's pip is upgraded to IMAGE_PIP first; without it
 * a wheel in the folder is "not found": pytest's setuptools-scm).
 */
export const BUILD_TOOLS = ["setuptools", "wheel", IMAGE_PIP] as const;

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
  /** Constraints for every pip run in the builder and in the image; default DEFAULT_BUILD_CONSTRAINTS. */
  constraints?: readonly string[];
  /** Where built wheel folders are kept between runs; default ~/.cache/loclab/wheels. */
  wheelCache?: string;
  /** pip's own cache (downloads, wheels built from sdists), shared by every builder; default ~/.cache/loclab/pip. */
  pipCache?: string;
  /** Resolve from the index as of this time (see resolutionCutoff); none: today's index. */
  resolvedAsOf?: string;
  /** What stands in for the network per repository; default NETWORK_STANDINS. */
  networkStandins?: Readonly<Record<string, NetworkStandins>>;
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

/** The labels that say which Python an image has and why (inherited by the instance images). */
export function pythonLabels(choice: PythonChoice, actual: string): Record<string, string> {
  return {
    "loclab.requested-python": choice.requested,
    "loclab.python": actual,
    "loclab.python-rule": choice.rule,
  };
}

/** The Python `pythonLabels` recorded (inherited by instance images); undefined for an image without them. */
export function pythonFromLabels(labels: Record<string, string>): ImagePython | undefined {
  const requested = labels["loclab.requested-python"];
  const actual = labels["loclab.python"];
  const rule = labels["loclab.python-rule"];
  if (!requested || !actual || (rule !== "exact" && rule !== "nearest-newer" && rule !== "nearest-older"))
    return undefined;
  return { requested, actual, rule };
}

/** The env image's label naming the stages installed as pinned, without pip's resolver (their sources). */
export const PINNED_STAGES_LABEL = "loclab.pinned-stages";

/** In a wheel folder: the stages made and installed with --no-deps (a JSON list of stage indices). */
const PINNED_STAGES_FILE = "pinned-stages.json";

async function readPinnedStages(wheels: string): Promise<number[]> {
  const text = await readFile(join(wheels, PINNED_STAGES_FILE), "utf8").catch(() => "[]");
  return JSON.parse(text) as number[];
}

/** pip's resolver gave up: the pins cannot all hold by the packages' own metadata. */
function isResolutionConflict(error: unknown): boolean {
  return error instanceof ImageBuildError && /ResolutionImpossible|conflicting dependencies/.test(error.message);
}

/** One fill of a wheel folder at a time in this process (see ensureEnvImage). */
const sharedWheelFolders = sharedByKey<void>();

/**
 * The env image of a repository × version: the plan's requirements built into wheels by the
 * base image's own Python in its root on the host (`builderPipWheel`: the host reaches the
 * Python package index, the image builds do not), then installed offline into the base image's
 * Python. The wheels stay in the image as pip's
 * only index (PIP_NO_INDEX, PIP_FIND_LINKS), so the instance's `pip install -e .` and the eval
 * script's re-install find the build requirements offline. Named and reused by the hash of the
 * base image's id and the requirement lines.
 */
export async function ensureEnvImage(
  docker: Docker,
  base: BaseImage,
  plan: EnvironmentPlan,
  choice: PythonChoice,
  options: EnvImageOptions = {},
): Promise<ImageRef> {
  const constraints = effectiveConstraints(plan, options.constraints ?? DEFAULT_BUILD_CONSTRAINTS);
  const standins = (options.networkStandins ?? NETWORK_STANDINS)[plan.repo];
  const hash = contentHash({
    kind: "loclab-swe-env",
    version: 9,
    base: base.image.id,
    stages: plan.stages,
    constraints,
    buildTools: BUILD_TOOLS,
    resolvedAsOf: options.resolvedAsOf ?? null,
    // The trust module goes into the image as text: a change to it is a new image.
    ...(standins ? { standins, ...(standins.httpbin?.httpsPort ? { trust: HTTPBIN_TRUST_MODULE } : {}) } : {}),
  });
  const name = envImageName(plan.repo, plan.version, hash);
  const existing = await findImage(docker, name);
  if (existing) return existing;
  const log = options.onProgress ?? (() => {});
  const wheels = join(options.wheelCache ?? defaultWheelCache(), hash.slice(0, 32));
  // Env images of different names can have the same content and so the same wheel folder
  // (requests 0.14, 2.3, 2.7 and 2.10 all install pytest alone): one fill per folder at a time,
  // or one build's fresh start removes the folder under another's pip.
  await sharedWheelFolders(wheels, async () => {
    if (existsSync(join(wheels, ".complete"))) return;
    log(
      `env image ${name}: pip wheel ${plan.requirements.length} requirements in ${plan.stages.length} stage(s) with Python ${base.builder.python}`,
    );
    await rm(wheels, { recursive: true, force: true });
    await mkdir(wheels, { recursive: true });
    await writeFile(join(wheels, "constraints.txt"), `${constraints.join("\n")}\n`);
    const pip = {
      builder: base.builder,
      wheels,
      pipCache: options.pipCache ?? defaultPipCache(),
      env: { PIP_CONSTRAINT: `${BUILDER_WHEELS}/constraints.txt` },
      ...(options.resolvedAsOf ? { uploadedPriorTo: options.resolvedAsOf } : {}),
      image: name,
    };
    const pinned: number[] = [];
    for (const [index, stage] of plan.stages.entries()) {
      await writeFile(join(wheels, `requirements-${index + 1}.txt`), `${stage.join("\n")}\n`);
      const wheel = (extra: string[]) =>
        builderPipWheel({
          ...pip,
          args: [...extra, "--requirement", `${BUILDER_WHEELS}/requirements-${index + 1}.txt`],
          what: `pip wheel of stage ${index + 1} of the environment${extra.length ? ` (${extra.join(" ")})` : ""}`,
        });
      try {
        await wheel([]);
      } catch (error) {
        if (!plan.exportStages.includes(index) || !isResolutionConflict(error)) throw error;
        log(
          `env image ${name}: stage ${index + 1} (${plan.sources[index]}) pins a whole environment that pip's resolver rejects; made as pinned (--no-deps)`,
        );
        await wheel(["--no-deps"]);
        pinned.push(index);
      }
    }
    await writeFile(join(wheels, PINNED_STAGES_FILE), `${JSON.stringify(pinned)}\n`);
    await writeFile(join(wheels, "build-tools.txt"), `${BUILD_TOOLS.join("\n")}\n`);
    await builderPipWheel({
      ...pip,
      args: ["--requirement", `${BUILDER_WHEELS}/build-tools.txt`],
      what: "pip wheel of the build tools",
    });
    if (standins?.httpbin) {
      // The stand-in's wheels, for the image's Python, resolved today (it is not the task's
      // environment) and installed apart from it.
      const httpbinWheels = join(wheels, "httpbin");
      await mkdir(httpbinWheels, { recursive: true });
      await builderPipWheel({
        builder: base.builder,
        wheels: httpbinWheels,
        pipCache: pip.pipCache,
        args: [...standins.httpbin.requirements],
        image: name,
        what: `pip wheel of the httpbin stand-in (${standins.httpbin.requirements.join(" ")})`,
      });
    }
    await writeFile(join(wheels, ".complete"), "");
  });
  const context = await mkdtemp(join(tmpdir(), "loclab-env-"));
  try {
    await cp(wheels, join(context, "wheels"), { recursive: true });
    await rm(join(context, "wheels", ".complete"), { force: true });
    const entries = ["Dockerfile", "wheels"];
    if (standins?.httpbin) {
      await rename(join(context, "wheels", "httpbin"), join(context, "httpbin-wheels"));
      await writeFile(join(context, "loclab_standin_ca.py"), HTTPBIN_TRUST_MODULE);
      entries.push("httpbin-wheels", "loclab_standin_ca.py");
    }
    const count = (await readdir(join(context, "wheels"))).filter((file) => file.endsWith(".whl")).length;
    const pinned = await readPinnedStages(wheels);
    // planEnvironment adds the build requirements last, with their source, when there are any.
    const buildStage = plan.sources.at(-1) === "build-system" ? plan.stages.length - 1 : -1;
    const dockerfile = [
      `FROM ${base.image.name}`,
      "COPY wheels /opt/loclab/wheels",
      // The suite's own pip may predate --break-system-packages (bullseye's 20.3): the current
      // pip wheel upgrades it, run from the wheel itself.
      `RUN python3 /opt/loclab/wheels/$(cd /opt/loclab/wheels && ls pip-*.whl | sort -V | tail -n 1)/pip install --break-system-packages --no-index --find-links /opt/loclab/wheels --upgrade '${IMAGE_PIP}'`,
      // A legacy editable install (`setup.py develop`, pylint 2.15) with a pip-installed
      // setuptools uses setuptools' own distutils, which knows nothing of Debian's /usr/local
      // scheme and installs where the Debian Python does not look (pylint: "No module named
      // pylint"); Debian's own distutils does. A local Python has the standard layout.
      `ENV PATH=${[basePythonBin(base.recipe), IMAGE_PATH].filter(Boolean).join(":")}${base.recipe.localPython ? "" : " SETUPTOOLS_USE_DISTUTILS=stdlib"} PIP_NO_INDEX=1 PIP_FIND_LINKS=/opt/loclab/wheels PIP_CONSTRAINT=/opt/loclab/wheels/constraints.txt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_BREAK_SYSTEM_PACKAGES=1`,
      // One pip install per stage, in the harness's order (a later stage may move an earlier pin).
      // The build requirements are wheels only, for the isolated builds of the instance's
      // install: the harness never installs them into the environment, and installing them
      // moved its pins (astropy's oldest-supported-numpy took numpy 1.25.2 down to 1.19.3, and
      // the repository's install then up to 2.0.2, against which the env's extensions fail).
      ...plan.stages.flatMap((_, index) =>
        index === buildStage
          ? []
          : [
              `RUN python3 -m pip install --no-build-isolation${pinned.includes(index) ? " --no-deps" : ""} -r /opt/loclab/wheels/requirements-${index + 1}.txt`,
            ],
      ),
      ...(standins?.httpbin
        ? [
            "COPY httpbin-wheels /tmp/httpbin-wheels",
            `RUN env -u PIP_CONSTRAINT -u PIP_FIND_LINKS python3 -m pip install --no-index --find-links /tmp/httpbin-wheels --target ${HTTPBIN_DIR} ${standins.httpbin.requirements.join(" ")} && rm -rf /tmp/httpbin-wheels`,
            ...(standins.httpbin.httpsPort
              ? ["COPY loclab_standin_ca.py /tmp/", `RUN ${httpbinCertificateCommand(standins.httpbin)}`]
              : []),
          ]
        : []),
      "",
    ].join("\n");
    await writeFile(join(context, "Dockerfile"), dockerfile);
    log(`env image ${name}: docker build (${count} wheels, no network)`);
    return await buildImage(docker, {
      name,
      context,
      entries,
      labels: {
        "loclab.kind": "env",
        "loclab.repo": plan.repo,
        "loclab.version": plan.version,
        "loclab.base": base.image.id,
        "loclab.env-hash": hash,
        ...pythonLabels(choice, base.builder.python),
        "loclab.sources": plan.sources.join(" "),
        ...(pinned.length ? { [PINNED_STAGES_LABEL]: pinned.map((index) => plan.sources[index]).join(" ") } : {}),
        ...(plan.conda ? { "loclab.conda": JSON.stringify(plan.conda) } : {}),
        "loclab.resolved-as-of": options.resolvedAsOf ?? "build time",
        "loclab.constraints": JSON.stringify(constraints),
        ...(standins ? { [STANDINS_LABEL]: JSON.stringify(standins) } : {}),
      },
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
}
