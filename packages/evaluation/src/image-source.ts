import type Docker from "dockerode";
import { readObjects } from "@loclab/checkouts";
import { findMirror, WorkspaceError } from "@loclab/tools";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CONDA_ACTIVATE, environmentPaths, harnessSpec, requirementsPaths, type HarnessSpec } from "@loclab/grading";
import { type BaseImage, baseRecipe, ensureBaseImage } from "./base-image.js";
import { limiter, sharedByKey } from "./build-slots.js";
import { type ResolvedAsOf, resolutionCutoff } from "./resolution-dates.js";
import { ensureEnvImage } from "./env-image.js";
import type { NetworkStandins } from "./network-standins.js";
import { EnvironmentUnsupportedError, planEnvironment } from "./environment-plan.js";
import { ImageBuildError } from "./image-build-error.js";
import { prebuiltImageName } from "./image-names.js";
import { findImage, type ImageRef } from "./image-ref.js";
import { InfraFailure } from "./infra-failure.js";
import { ensureInstanceImage } from "./instance-image.js";
import { baseKey, choosePython, PYTHON_BASES, type PythonBase, PythonChoiceError } from "./python-choice.js";

/** What an evaluation needs to know of an instance (a SWE-bench row). */
export interface EvaluationInstance {
  instance_id: string;
  repo: string;
  version?: string | undefined;
  base_commit: string;
  patch: string;
  test_patch?: string | undefined;
  FAIL_TO_PASS?: string[] | undefined;
  PASS_TO_PASS?: string[] | undefined;
  environment_setup_commit?: string | undefined;
}

/** Where instance images come from, and how the eval script enters their environment. */
export interface ImageSource {
  kind: "prebuilt" | "local";
  /** The eval script's activation lines (conda's testbed, or loclab's virtual environment). */
  activate: readonly string[];
  /** The instance image; an `InfraFailure` when there is none and none can be made. */
  imageFor(instance: EvaluationInstance, spec: HarnessSpec): Promise<ImageRef>;
}

/**
 * The SWE-bench prebuilt images by their published names (`swebench/sweb.eval.x86_64.…`): used
 * when present locally, pulled otherwise (unless `pull: false`). No registry answering is an
 * infrastructure failure naming the image.
 */
export function prebuiltImages(
  docker: Docker,
  options: { namespace?: string; tag?: string; pull?: boolean } = {},
): ImageSource {
  return {
    kind: "prebuilt",
    activate: CONDA_ACTIVATE,
    async imageFor(instance) {
      const name = prebuiltImageName(instance.instance_id, options);
      const present = await findImage(docker, name);
      if (present) return present;
      if (options.pull === false)
        throw new InfraFailure("image-missing", `image ${name} is not present locally (pulling is off)`);
      await new Promise<void>((resolve, reject) =>
        docker.pull(name, (error: Error | null, stream: NodeJS.ReadableStream) => {
          if (error)
            return reject(
              new InfraFailure("image-missing", `image ${name} is not present and cannot be pulled: ${error.message}`),
            );
          docker.modem.followProgress(stream, (done: Error | null) =>
            done ? reject(new InfraFailure("image-missing", `pulling ${name}: ${done.message}`)) : resolve(),
          );
        }),
      );
      const pulled = await findImage(docker, name);
      if (!pulled) throw new InfraFailure("image-missing", `image ${name} was pulled but is not there`);
      return pulled;
    },
  };
}

export interface LocalImagesOptions {
  /** Folder of mirrors: `<owner>__<name>.git` (as `loclab mirrors fetch` makes them) or `<owner>__<name>`, bare or not. */
  repos: string;
  wheelCache?: string;
  pipCache?: string;
  rootCache?: string;
  /**
   * The harness's cached environments (a SWE-bench checkout's `swebench/resources/swebench-og`:
   * one `conda env export` of each validated image, `<owner>__<name>/<number>/environment.yml`);
   * an instance that has one is built from it, as the harness run from its repository does.
   */
  harnessEnvironments?: string;
  /**
   * Resolve unpinned requirements as of when: `harness` (default: the repository's date from the
   * harness's validated images, `harnessResolutionDate`), `now`, or an ISO date.
   */
  resolvedAsOf?: ResolvedAsOf;
  /** Env and instance images built at once, at most; default 2 (each build takes a core or two). */
  buildConcurrency?: number;
  /** The Pythons base images are made for, by Debian suite; default PYTHON_BASES (3.9 bullseye, 3.11 bookworm). */
  pythonBases?: readonly PythonBase[];
  debianMirror?: string;
  /** What stands in for the network per repository; default NETWORK_STANDINS (requests' httpbin and tarpit). */
  networkStandins?: Readonly<Record<string, NetworkStandins>>;
  onProgress?: (line: string) => void;
}

/** How local images are made, apart from where the mirrors are: what an evaluation passes through. */
export type LocalImageSettings = Omit<LocalImagesOptions, "repos" | "onProgress">;

const LOCAL_IMAGE_SETTINGS = [
  "wheelCache",
  "pipCache",
  "rootCache",
  "harnessEnvironments",
  "resolvedAsOf",
  "buildConcurrency",
  "pythonBases",
  "debianMirror",
  "networkStandins",
] as const satisfies readonly (keyof LocalImageSettings)[];

// Every setting is in the list: a new one that is not fails to compile here.
const everySetting: [Exclude<keyof LocalImageSettings, (typeof LOCAL_IMAGE_SETTINGS)[number]>] extends [never]
  ? true
  : never = true;
void everySetting;

/** The local-image settings among a caller's options (the ones it set). */
export function localImageSettings(options: LocalImageSettings): LocalImageSettings {
  return Object.fromEntries(
    LOCAL_IMAGE_SETTINGS.filter((key) => options[key] !== undefined).map((key) => [key, options[key]]),
  ) as LocalImageSettings;
}

/**
 * Images built here: one base per Debian suite (debootstrap), chosen for the spec's Python by
 * `choosePython` (exact, else the nearest newer, recorded in the labels); one env image per
 * repository × version (wheels built by the base's Python in its root on the host); one
 * instance image per instance (the mirror at base_commit). Builds of the same image asked for at
 * once are shared; a build that fails is an infrastructure failure.
 */
export function localImages(docker: Docker, options: LocalImagesOptions): ImageSource {
  const once = sharedByKey<ImageRef>();
  const onceBase = sharedByKey<BaseImage>();
  // Env and instance builds share this bound; a base is built once per suite anyway.
  const slot = limiter(options.buildConcurrency ?? 2);
  const progress = options.onProgress ? { onProgress: options.onProgress } : {};
  const caches = options.pipCache ? { pipCache: options.pipCache } : {};
  return {
    kind: "local",
    // The image's system Python is the environment: nothing to activate.
    activate: [],
    async imageFor(instance, spec) {
      const mirror = await mirrorOf(options.repos, instance.repo);
      // Known once the Python is chosen (the base's full version once it exists): a failed build's
      // outcome says which interpreter it was for.
      let python: InfraFailure["python"];
      try {
        const environmentCommit = instance.environment_setup_commit ?? instance.base_commit;
        const files = await repositoryFiles(mirror, environmentCommit, [
          ...requirementsPaths(instance.repo),
          ...(spec.packages === "environment.yml" ? environmentPaths(instance.repo) : []),
          "pyproject.toml",
        ]);
        const cachedEnvironment = options.harnessEnvironments
          ? await readCachedEnvironment(options.harnessEnvironments, instance.instance_id)
          : undefined;
        const plan = planEnvironment({
          repo: instance.repo,
          version: instance.version ?? "",
          spec,
          environmentCommit,
          readFile: (path) => files.get(path),
          ...(cachedEnvironment ? { cachedEnvironment } : {}),
        });
        const choice = choosePython(plan.requestedPython, options.pythonBases ?? PYTHON_BASES);
        python = { requested: choice.requested, actual: choice.python, rule: choice.rule };
        const cutoff = resolutionCutoff(instance.repo, options.resolvedAsOf);
        const dated = cutoff ? { resolvedAsOf: cutoff } : {};
        const base = await onceBase(baseKey(choice), () =>
          ensureBaseImage(docker, {
            recipe: baseRecipe(choice.suite, choice.local),
            ...(options.debianMirror ? { mirror: options.debianMirror } : {}),
            ...(options.rootCache ? { rootCache: options.rootCache } : {}),
            ...progress,
          }),
        );
        python = { ...python, actual: base.builder.python };
        const env = await once(
          `env:${baseKey(choice)}:${instance.repo}:${instance.version}:${plan.requirements.join("\n")}`,
          () =>
            slot(() =>
              ensureEnvImage(docker, base, plan, choice, {
                ...(options.wheelCache ? { wheelCache: options.wheelCache } : {}),
                ...(options.networkStandins ? { networkStandins: options.networkStandins } : {}),
                ...caches,
                ...dated,
                ...progress,
              }),
            ),
        );
        return await once(`instance:${instance.instance_id}:${instance.base_commit}`, () =>
          slot(() =>
            ensureInstanceImage(
              docker,
              {
                instanceId: instance.instance_id,
                repo: instance.repo,
                baseCommit: instance.base_commit,
                spec,
                mirrorGitDir: mirror.gitDir,
                env,
                builder: base.builder,
              },
              { ...progress, ...caches, ...dated },
            ),
          ),
        );
      } catch (error) {
        if (error instanceof PythonChoiceError)
          throw new InfraFailure("environment-unsupported", `${instance.instance_id}: ${error.message}`);
        if (error instanceof EnvironmentUnsupportedError)
          throw new InfraFailure("environment-unsupported", error.message, python);
        if (error instanceof ImageBuildError) throw new InfraFailure("image-build-failed", error.message, python);
        if (error instanceof InfraFailure) throw new InfraFailure(error.reason, error.message, error.python ?? python);
        throw new InfraFailure("image-build-failed", `${instance.instance_id}: ${(error as Error).message}`, python);
      }
    },
  };
}

/**
 * The harness's cached environment of an instance (`<dir>/<owner>__<name>/<number>/environment.yml`),
 * or undefined when it has none.
 */
export async function readCachedEnvironment(
  dir: string,
  instanceId: string,
): Promise<{ text: string; source: string } | undefined> {
  const match = /^(.+)-(\d+)$/.exec(instanceId);
  if (!match) return undefined;
  const path = join(dir, match[1]!, match[2]!, "environment.yml");
  try {
    return { text: await readFile(path, "utf8"), source: path };
  } catch {
    return undefined;
  }
}

/**
 * The repository's mirror, found as everywhere else in loclab (`findMirror`: `<owner>__<name>`
 * or `<owner>__<name>.git`, bare or not); a missing or broken one is the infrastructure's
 * failure, named with where it was looked for.
 */
async function mirrorOf(repos: string, repo: string): Promise<{ path: string; gitDir: string }> {
  try {
    return await findMirror(repos, repo);
  } catch (error) {
    if (error instanceof WorkspaceError) throw new InfraFailure("mirror-missing", error.message);
    throw error;
  }
}

/**
 * Files of a repository at a commit, read from the mirror: the paths asked for, then every
 * `-r other.txt` a found requirements file includes (relative to its folder), as the harness
 * follows them.
 */
async function repositoryFiles(
  mirror: { path: string; gitDir: string },
  commit: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  let wanted = [...paths];
  for (let round = 0; round < 2 && wanted.length > 0; round += 1) {
    const read = await readObjects(
      mirror,
      wanted.map((path) => `${commit}:${path}`),
    );
    const next: string[] = [];
    for (const path of wanted) {
      const content = read.get(`${commit}:${path}`);
      if (content === undefined) continue;
      const text = content.toString("utf8");
      files.set(path, text);
      const directory = path.split("/").slice(0, -1).join("/");
      for (const line of text.split("\n"))
        if (line.trim().startsWith("-r"))
          next.push(directory ? `${directory}/${line.trim().slice(2).trim()}` : line.trim().slice(2).trim());
    }
    wanted = next.filter((path) => !files.has(path));
  }
  return files;
}

/** The instance's spec, with the caller's extra specs for repositories the harness does not know. */
export function specForInstance(
  instance: EvaluationInstance,
  extra: Readonly<Record<string, Readonly<Record<string, HarnessSpec>>>> = {},
): HarnessSpec {
  return harnessSpec(instance.repo, instance.version, extra);
}
