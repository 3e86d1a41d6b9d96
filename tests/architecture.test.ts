import { describe, expect, it } from "vitest";
import {
  checkArchitecture,
  findCycles,
  type PackageModel,
  readRepoModel,
  REPO_ROOT,
  type RepoModel,
} from "./architecture/check-architecture.js";

// The architecture rules (issue 11): no cycles between files or packages; metrics, statistics
// and the pure part of controls do no I/O, read no clock and draw no Math.random; analysis does
// not import what writes the logs; nothing imports cli; charts import no domain package but
// schemas; packages are imported by their public entry and declared; a package's own tests
// import only what it declares.

const repo = readRepoModel(REPO_ROOT);

/** A copy of the real model with one file changed or added, to plant a violation. */
function withFile(
  dir: string,
  where: "src" | "test",
  path: string,
  text: string,
  change: (pkg: PackageModel) => void = () => {},
): RepoModel {
  return {
    packages: repo.packages.map((pkg) => {
      if (pkg.dir !== dir) return pkg;
      const copy: PackageModel = {
        ...pkg,
        dependencies: [...pkg.dependencies],
        src: [...pkg.src],
        test: [...pkg.test],
      };
      const files = copy[where];
      const index = files.findIndex((file) => file.path === path);
      if (index >= 0) files[index] = { path, text };
      else files.push({ path, text });
      change(copy);
      return copy;
    }),
  };
}
const rules = (model: RepoModel) =>
  checkArchitecture(model).map((violation) => `${violation.rule}: ${violation.where}: ${violation.detail}`);

describe("the repository's architecture", () => {
  it("reads every package", () => {
    expect(repo.packages.map((pkg) => pkg.dir)).toEqual(
      expect.arrayContaining([
        "agent",
        "analysis",
        "charts",
        "cli",
        "controls",
        "metrics",
        "openai-http",
        "schemas",
        "statistics",
        "tools",
      ]),
    );
    expect(repo.packages.every((pkg) => pkg.src.length > 0)).toBe(true);
  });

  it("has no violation", () => {
    expect(rules(repo)).toEqual([]);
  });
});

describe("each rule catches a planted violation", () => {
  it("a cycle between two files of a package", () => {
    const one = withFile(
      "metrics",
      "src",
      "src/planted-a.ts",
      'import { b } from "./planted-b.js";\nexport const a = b;\n',
    );
    const both = {
      packages: one.packages.map((pkg) =>
        pkg.dir === "metrics"
          ? {
              ...pkg,
              src: [
                ...pkg.src,
                { path: "src/planted-b.ts", text: 'import type { a } from "./planted-a.js";\nexport const b = 1;\n' },
              ],
            }
          : pkg,
      ),
    };
    expect(rules(both)).toEqual([
      "no file cycles: packages/metrics: src/planted-a.ts → src/planted-b.ts → src/planted-a.ts",
    ]);
  });

  it("a cycle between packages", () => {
    const model = withFile("metrics", "src", "src/planted.ts", 'export * from "@loclab/scoring";\n', (pkg) =>
      pkg.dependencies.push("@loclab/scoring"),
    );
    expect(rules(model)).toEqual([
      "no package cycles: @loclab/metrics: @loclab/metrics → @loclab/scoring → @loclab/metrics",
    ]);
  });

  it.each([
    ["metrics", 'import { readFileSync } from "node:fs";\nexport const x = readFileSync;\n', "imports node:fs"],
    [
      "statistics",
      "export const draw = () => Math.random();\n",
      "Math.random (randomness must come in as a seed or an rng)",
    ],
    ["controls", "export const stamp = () => new Date().toISOString();\n", "new Date() (the clock)"],
    [
      "controls",
      'import { execFileSync } from "node:child_process";\nexport const git = execFileSync;\n',
      "imports node:child_process",
    ],
    [
      "fgl-math",
      "export const jitter = () => Math.random();\n",
      "Math.random (randomness must come in as a seed or an rng)",
    ],
  ])("I/O, the clock or Math.random in a pure package (%s)", (dir, text, detail) => {
    expect(rules(withFile(dir, "src", "src/planted.ts", text))).toEqual([
      `pure packages do no I/O: packages/${dir}/src/planted.ts: ${detail}`,
    ]);
  });

  it("a doc comment or string that names Math.random is not a call", () => {
    expect(
      rules(
        withFile(
          "statistics",
          "src",
          "src/planted.ts",
          '/** Unlike Math.random(), seeded. */\nexport const note = "Date.now()";\n',
        ),
      ),
    ).toEqual([]);
  });

  it("analysis importing the agent", () => {
    const model = withFile(
      "analysis",
      "src",
      "src/planted.ts",
      'export { localizeInstance } from "@loclab/agent";\n',
      (pkg) => pkg.dependencies.push("@loclab/agent"),
    );
    expect(rules(model)).toContain(
      "analysis reads logs; it does not import what writes them: packages/analysis/src/planted.ts: @loclab/agent",
    );
  });

  it("a package importing cli", () => {
    const model = withFile("scoring", "src", "src/planted.ts", 'export * from "@loclab/cli";\n', (pkg) =>
      pkg.dependencies.push("@loclab/cli"),
    );
    expect(rules(model)).toEqual(
      expect.arrayContaining([
        "nothing imports cli: packages/scoring/package.json: @loclab/scoring depends on @loclab/cli",
        "nothing imports cli: packages/scoring/src/planted.ts: @loclab/cli",
      ]),
    );
  });

  it("the one HTTP client importing a loclab package", () => {
    const model = withFile("openai-http", "src", "src/planted.ts", 'export * from "@loclab/schemas";\n', (pkg) =>
      pkg.dependencies.push("@loclab/schemas"),
    );
    expect(rules(model)).toEqual([
      "schemas and openai-http import no loclab package: packages/openai-http/src/planted.ts: @loclab/schemas",
    ]);
  });

  it("charts importing a domain package", () => {
    const model = withFile("charts", "src", "src/planted.ts", 'export * from "@loclab/metrics";\n', (pkg) =>
      pkg.dependencies.push("@loclab/metrics"),
    );
    expect(rules(model)).toEqual([
      "charts import no domain package but schemas: packages/charts/src/planted.ts: @loclab/metrics",
    ]);
  });

  it("an undeclared or deep import, and a package test reaching another package", () => {
    expect(
      rules(withFile("metrics", "src", "src/planted.ts", 'export * from "@loclab/gold/dist/parse.js";\n')),
    ).toEqual([
      "other packages only through their public entry: packages/metrics/src/planted.ts: @loclab/gold/dist/parse.js",
      "imported packages are declared dependencies: packages/metrics/src/planted.ts: @loclab/gold is not in @loclab/metrics's dependencies",
    ]);
    expect(
      rules(
        withFile("metrics", "test", "test/planted.test.ts", 'import { readTrajectory } from "@loclab/analysis";\n'),
      ),
    ).toEqual([
      "a package's tests import only what the package declares (cross-package tests live in tests/): packages/metrics/test/planted.test.ts: @loclab/analysis",
    ]);
  });

  it("findCycles reports each cycle once, and none in a tree", () => {
    expect(
      findCycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c", "a"]]);
    expect(
      findCycles(
        new Map([
          ["a", ["b", "c"]],
          ["b", ["c"]],
          ["c", []],
        ]),
      ),
    ).toEqual([]);
  });
});
