// What the per-row speed benchmarks of issue 18 share: medians, whole-process timing of
// interleaved commands, the machine's load, a django tree as a cached workspace, and the
// result file each benchmark writes for scripts/speed-table.mjs.
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const DJANGO = process.env.LOCLAB_DJANGO_SOURCE ?? "/usr/lib/python3/dist-packages/django";

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
export const round = (value, digits = 3) =>
  value === null || value === undefined || Number.isNaN(value) ? null : +value.toFixed(digits);

/** The machine as a benchmark saw it: cores and the 1/5/15-minute load averages at its start. */
export function machine() {
  return { node: process.version, cores: cpus().length, loadAverage: loadavg().map((value) => round(value, 2)) };
}

/**
 * Whole-process wall times of several commands, run interleaved (A B C A B C …) `rounds`
 * times after one untimed warm-up each, so that drift in the machine's load hits all alike.
 * Each command's stdout is checked by `check` (same answers). Returns the median per name.
 */
export function interleaved(commands, { rounds = 15 } = {}) {
  const times = Object.fromEntries(commands.map(({ name }) => [name, []]));
  const runOne = ({ name, file, args, env, check }) => {
    const started = performance.now();
    const result = spawnSync(file, args, { encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
    const ms = performance.now() - started;
    if (result.error) throw result.error;
    if (check) check(result.stdout, result.status, name);
    return ms;
  };
  for (const command of commands) runOne(command);
  for (let round = 0; round < rounds; round += 1)
    for (const command of commands) times[command.name].push(runOne(command));
  return Object.fromEntries(
    Object.entries(times).map(([name, list]) => [
      name,
      { medianMs: round(median(list), 1), minMs: round(Math.min(...list), 1), runs: list.length },
    ]),
  );
}

/**
 * Debian's django package committed to a git repository as `django/` (the layout of django's
 * own repository, so that `import django.…` resolves) and materialized into a workspace cache
 * under `work` (the benchmarks' "cached workspace", as a run's workspaces are made).
 * Returns the cached tree's path and what materializeWorkspace needs.
 */
export async function cachedDjango(work) {
  const { materializeWorkspace } = await import("@loclab/tools");
  const source = join(work, "django-src");
  if (!existsSync(source)) {
    cpSync(DJANGO, join(source, "django"), { recursive: true, filter: (path) => !path.includes("__pycache__") });
    const git = (cwd, ...args) =>
      execFileSync("git", args, {
        cwd,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
      })
        .toString()
        .trim();
    git(source, "init", "-q", "-b", "main");
    git(source, "add", "-A");
    git(source, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-qm", "django from Debian");
    mkdirSync(join(work, "mirrors"), { recursive: true });
    git(work, "clone", "-q", "--bare", source, join(work, "mirrors", "django__django.git"));
  }
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: source, encoding: "utf8" }).trim();
  const instance = { repo: "django/django", base_commit: commit };
  const options = { instance, mirrors: join(work, "mirrors"), cacheDir: join(work, "cache") };
  const workspace = await materializeWorkspace(options);
  return { tree: workspace.root, options };
}

/**
 * The Python interpreter itself (`sys.executable` of `python3` on PATH): a pyenv shim in front
 * of it is a shell script that would add its own start-up to every timed run.
 */
export function pythonExecutable() {
  return execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
}

/**
 * A Python with numpy: python3 itself when it has it, else a virtual environment under
 * ~/.cache/loclab/bench-numpy made on first use (numpy from the Python package index, pinned).
 * Undefined when neither works (the numpy comparison is then reported as unavailable).
 */
export function numpyPython() {
  const system = pythonExecutable();
  if (spawnSync(system, ["-c", "import numpy"]).status === 0) return system;
  const venv = join(
    process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? tmpdir(), ".cache"),
    "loclab",
    "bench-numpy",
  );
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) {
    if (spawnSync(system, ["-m", "venv", venv], { stdio: "inherit" }).status !== 0) return undefined;
  }
  if (spawnSync(python, ["-c", "import numpy"]).status !== 0) {
    if (spawnSync(python, ["-m", "pip", "install", "-q", "numpy==2.4.6"], { stdio: "inherit" }).status !== 0)
      return undefined;
  }
  return python;
}

/** A fresh scratch folder for one benchmark. */
export function scratch(name) {
  const dir = join(tmpdir(), `loclab-bench-${name}-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes results/bench-<name>.json and prints it. */
export function report(name, result) {
  const file = join(repoRoot, "results", `bench-${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  const body = { benchmark: name, measuredAt: new Date().toISOString(), machine: machine(), ...result };
  writeFileSync(file, `${JSON.stringify(body, null, 2)}\n`);
  console.log(JSON.stringify(body, null, 2));
  console.log(`wrote ${file}`);
  return body;
}
