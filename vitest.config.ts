import { defineConfig } from "vitest/config";

// One root run over every package's unit tests and the cross-package tests in tests/.
// Package tests import their own src; cross-package tests import packages by name (built dist).
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores here: one worker per core keeps real-data tests from starving each other.
    maxWorkers: 2,
    setupFiles: ["./vitest.setup.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
  },
});
