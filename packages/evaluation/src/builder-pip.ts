import { mkdir, readdir } from "node:fs/promises";
import { type BuilderBind, type BuilderRoot, insideBuilder, runInBuilder } from "./builder-root.js";
import { ImageBuildError } from "./image-build-error.js";

export interface BuilderPipWheelInput {
  builder: BuilderRoot;
  /** The host folder the wheels go to (seen inside as /tmp/loclab/wheels); also a --find-links. */
  wheels: string;
  /** pip wheel's arguments, paths as seen inside (`insideBuilder(name)`). */
  args: readonly string[];
  binds?: readonly BuilderBind[];
  /** pip's cache on the host, shared by every builder (pip keys built wheels by their tags). */
  pipCache?: string;
  env?: Record<string, string>;
  /** Resolve from the index as of this time (pip's --uploaded-prior-to); local wheels are always seen. */
  uploadedPriorTo?: string;
  image: string;
  what: string;
  onLine?: (line: string) => void;
}

/**
 * The pip the builder runs: the newest its Python supports, before pip 26.2 (which stops
 * passing PIP_CONSTRAINT to isolated builds; see DEFAULT_BUILD_CONSTRAINTS).
 */
export const BUILDER_PIP = "pip<26.2";

/** The wheels folder as seen inside the builder. */
export const BUILDER_WHEELS = insideBuilder("wheels");

/**
 * `pip wheel` in the builder root, with a current pip: the suite's own pip (bullseye's 20.3)
 * only downloads the newest pip wheel its Python supports into the wheels folder, and that
 * wheel runs pip (`python3 pip-….whl/pip`), which reads every wheel's metadata; the same wheel
 * later upgrades the image's pip. Isolated builds of sdists run there too, with the network.
 */
export async function builderPipWheel(input: BuilderPipWheelInput): Promise<void> {
  const binds = [{ host: input.wheels, name: "wheels" }, ...(input.binds ?? [])];
  if (input.pipCache) {
    await mkdir(input.pipCache, { recursive: true });
    binds.push({ host: input.pipCache, name: "pip-cache" });
  }
  const env = {
    ...(input.pipCache ? { PIP_CACHE_DIR: insideBuilder("pip-cache") } : { PIP_NO_CACHE_DIR: "1" }),
    ...input.env,
  };
  let pip = await pipWheelIn(input.wheels);
  if (!pip) {
    await runInBuilder({
      builder: input.builder,
      binds,
      env,
      command: [
        "python3",
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--dest",
        BUILDER_WHEELS,
        "pip",
      ],
      image: input.image,
      what: "downloading a current pip",
      ...(input.onLine ? { onLine: input.onLine } : {}),
    });
    pip = await pipWheelIn(input.wheels);
    if (!pip) throw new ImageBuildError(input.image, "pip download of pip wrote no pip wheel");
  }
  await runInBuilder({
    builder: input.builder,
    binds,
    command: pipWheelCommand(pip, input),
    env,
    image: input.image,
    what: input.what,
    ...(input.onLine ? { onLine: input.onLine } : {}),
  });
}

/** The builder's `pip wheel` command line (the wheels folder as output and index, the cutoff, the caller's arguments). */
export function pipWheelCommand(pip: string, input: Pick<BuilderPipWheelInput, "args" | "uploadedPriorTo">): string[] {
  return [
    "python3",
    `${BUILDER_WHEELS}/${pip}/pip`,
    "wheel",
    "--wheel-dir",
    BUILDER_WHEELS,
    "--find-links",
    BUILDER_WHEELS,
    ...(input.uploadedPriorTo ? ["--uploaded-prior-to", input.uploadedPriorTo] : []),
    ...input.args,
  ];
}

/** The pip wheel in a folder (the newest, if several). */
export async function pipWheelIn(folder: string): Promise<string | undefined> {
  const files = (await readdir(folder).catch(() => [] as string[])).filter((file) =>
    /^pip-[^-]+-py3-none-any\.whl$/.test(file),
  );
  return files.sort((a, b) => a.localeCompare(b, "en", { numeric: true })).at(-1);
}
