import { defineConfig } from "vitest/config";

// One root run over every package's unit tests and the cross-package tests in tests/.
// Package tests import their own src; cross-package tests import packages by name (built dist).
//
// Four groups, one after another.
// "unit": everything that needs neither the test model nor the Docker engine, two workers (one
// per core).
// "evaluation": tests/evaluation-docker.test.ts alone: it builds the debootstrap base image that
// the containers group reuses, and it prunes instance images (another file's would go with them).
// "containers": the Docker engine's tests that run no model process (the scripted servers stand
// in), two files at once: much of their time is waiting (test suites in containers, time limits,
// image imports), and every check of what is left is scoped to the file's own run label.
// "real-model": the tests that run llama.cpp or vLLM on the test model, one file at a time, last,
// because llama.cpp spin-waits on its threads and two model processes on two cores slowed each
// other down by orders of magnitude (a 70 s test took over 300 s).
const EVALUATION = ["tests/evaluation-docker.test.ts"];
const CONTAINERS = [
  "tests/evaluate-cli.test.ts",
  // The task's Python: a second base image (bullseye's 3.9), kept in ~/.cache/loclab/roots.
  "tests/evaluation-pythons.test.ts",
  // Network stand-ins (httpbin, a tarpit) in an eval container with no network.
  "tests/evaluation-standins.test.ts",
  // The fixer's sandbox and tools in a container of the evaluation's base image.
  "tests/fixer-sandbox.test.ts",
  // The sandbox against hostile commands: floods, fork bombs, memory, leftovers, huge files.
  "tests/sandbox-hostile.test.ts",
  "tests/repair-hostile-run.test.ts",
  // The fixer's loop against the scripted model server, in that container.
  "tests/fixer-loop.test.ts",
  // Repair runs through the runner: the fixer in the calc fixture's instance images, each final patch evaluated.
  "tests/repair-run.test.ts",
  "tests/transfer-run.test.ts",
  "tests/mini-swe-agent-run.test.ts",
  // A repair run on BullMQ workers, each attempt in containers, against the same run locally.
  "tests/distributed-repair.test.ts",
];
const REAL_MODEL = [
  "packages/serve/test/serve-api.test.ts",
  "tests/real-model-run.test.ts",
  // README's first run (the test model) and its install line in a fresh copy (npm ci and a build).
  "tests/readme-first-run.test.ts",
  "tests/reproduce.test.ts",
  "tests/vllm-lifecycle.test.ts",
  // The real vLLM (its CPU build): one server for the file, about a minute to start, 2 cores bound.
  "tests/vllm-real.test.ts",
  "tests/fgl-real-model.test.ts",
  // `loclab vllm up` through a real container running the stand-in `vllm` on the test model.
  "tests/vllm-docker.test.ts",
  // vLLM servers through Slurm: a single-node cluster (slurm-wlm) running the stand-in `vllm` on the test model.
  "tests/slurm-launcher.test.ts",
];

export default defineConfig({
  test: {
    // No wall-clock limit on any test or hook: load can stretch a correct test's time without
    // bound on 2 cores, and a limit would then fail CI for no fault. What bounds a test is its own
    // budgets (a run's wallSeconds, a client's request timeout); a test that truly hangs is
    // stopped by CI's own limit.
    testTimeout: 0,
    hookTimeout: 0,
    maxWorkers: 2,
    setupFiles: ["./vitest.setup.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "tests/**/*.test.ts"],
          exclude: [...EVALUATION, ...CONTAINERS, ...REAL_MODEL],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "evaluation", include: EVALUATION, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      { extends: true, test: { name: "containers", include: CONTAINERS, sequence: { groupOrder: 2 } } },
      {
        extends: true,
        test: { name: "real-model", include: REAL_MODEL, fileParallelism: false, sequence: { groupOrder: 3 } },
      },
    ],
  },
});
