import { defineConfig } from "vitest/config";

// One root run over every package's unit tests and the cross-package tests in tests/.
// Package tests import their own src; cross-package tests import packages by name (built dist).
//
// Two groups. "real-model": the tests that run llama.cpp on the test model (and the evaluation's
// tests on the Docker engine, which build images); one file at a time,
// after everything else, because llama.cpp spin-waits on its threads and two model processes on
// two cores slowed each other down by orders of magnitude (a 70 s test took over 300 s).
// "unit": the rest, two workers (one per core).
const REAL_MODEL = [
  "packages/serve/test/serve-api.test.ts",
  "tests/real-model-run.test.ts",
  // README's first run (the test model) and its install line in a fresh copy (npm ci and a build).
  "tests/readme-first-run.test.ts",
  "tests/reproduce.test.ts",
  "tests/vllm-lifecycle.test.ts",
  // The real vLLM (its CPU build): one server for the file, about a minute to start, 2 cores bound.
  "tests/vllm-real.test.ts",
  "tests/vllm-docker.test.ts",
  "tests/fgl-real-model.test.ts",
  // Evaluation on the Docker engine: the first builds the debootstrap base image (≈ 2 min) that
  // the second reuses; one at a time, after the rest, so the build does not race another.
  "tests/evaluation-docker.test.ts",
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
          exclude: REAL_MODEL,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "real-model", include: REAL_MODEL, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
