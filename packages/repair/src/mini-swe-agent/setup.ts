import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { MINI_SWE_AGENT_VERSION } from "@loclab/runner";

/** Where the project keeps mini-swe-agent's virtual environment (one per pinned version). */
export function miniSweAgentVenv(): string {
  return join(
    process.env.LOCLAB_CACHE_DIR ?? join(homedir(), ".cache", "loclab"),
    "venvs",
    `mini-swe-agent-${MINI_SWE_AGENT_VERSION}`,
  );
}

/** The Python of mini-swe-agent's environment, when it is installed at the pinned version; else undefined. */
export function installedMiniSweAgent(venv: string = miniSweAgentVenv()): string | undefined {
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) return undefined;
  const probe = spawnSync(python, ["-c", "import minisweagent, sys; sys.stdout.write(minisweagent.__version__)"], {
    encoding: "utf8",
    env: { ...process.env, MSWEA_SILENT_STARTUP: "1" },
  });
  return probe.status === 0 && probe.stdout.trim() === MINI_SWE_AGENT_VERSION ? python : undefined;
}

/** The Python of mini-swe-agent's environment, or an error saying how to install it. */
export function miniSweAgentPython(): string {
  const python = installedMiniSweAgent();
  if (!python)
    throw new Error(
      `mini-swe-agent ${MINI_SWE_AGENT_VERSION} is not installed in ${miniSweAgentVenv()}: run \`npx loclab setup mini-swe-agent\` (from the Python package index, about a minute)`,
    );
  return python;
}

/**
 * Installs mini-swe-agent at the pinned version from the Python package index into the
 * project's own virtual environment (`python3 -m venv`, then `pip install
 * mini-swe-agent==VERSION`), built beside its final place and moved there when complete, so an
 * interrupted install never leaves a half environment that looks installed. Nothing is done
 * when it is already there.
 */
export async function ensureMiniSweAgent(
  options: { python?: string; onProgress?: (line: string) => void } = {},
): Promise<{ python: string; installed: boolean }> {
  const venv = miniSweAgentVenv();
  const ready = installedMiniSweAgent(venv);
  if (ready) return { python: ready, installed: false };
  const building = `${venv}.partial-${process.pid}`;
  await mkdir(dirname(venv), { recursive: true });
  await rm(building, { recursive: true, force: true });
  const say = options.onProgress ?? (() => undefined);
  try {
    say(`creating a virtual environment in ${venv}`);
    await run(options.python ?? "python3", ["-m", "venv", building], say);
    say(`pip install mini-swe-agent==${MINI_SWE_AGENT_VERSION} (from the Python package index)`);
    await run(
      join(building, "bin", "python"),
      ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `mini-swe-agent==${MINI_SWE_AGENT_VERSION}`],
      say,
    );
    await rm(venv, { recursive: true, force: true });
    await rename(building, venv);
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
  // A venv's scripts name its own path; the interpreter itself works from the new place.
  const python = installedMiniSweAgent(venv);
  if (!python) throw new Error(`mini-swe-agent was installed in ${venv} but does not import`);
  return { python, installed: true };
}

function run(command: string, args: string[], say: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const keep = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (error) => reject(new Error(`${command}: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve();
      else {
        say(tail.trim());
        reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${tail.trim().split("\n").at(-1) ?? ""}`));
      }
    });
  });
}
