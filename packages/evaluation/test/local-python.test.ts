import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import {
  baseKey,
  baseRecipe,
  baseRecipeHash,
  choosePython,
  LocalPythonError,
  localPythonBase,
  PYTHON_BASES,
  readLocalPython,
} from "../src/index.js";

const empty = mkdtempSync(join(tmpdir(), "loclab-local-python-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

// The Python running these tests' tools is a real prefix: whatever python3 is on PATH.
const hostPrefix = dirname(
  dirname(
    execFileSync("python3", ["-c", "import sys, os; print(os.path.realpath(sys.executable))"], {
      encoding: "utf8",
    }).trim(),
  ),
);

describe("local Pythons as bases", () => {
  it("reads a prefix's version by running it; a folder that is not one is a clear error", () => {
    const local = readLocalPython(hostPrefix);
    expect(local.version).toMatch(/^3\.\d+\.\d+$/);
    expect(local.prefix).toBe(hostPrefix);
    expect(() => readLocalPython(empty)).toThrow(LocalPythonError);
    expect(() => readLocalPython(empty)).toThrow(/no .*bin\/python3 \(give a CPython installation prefix\)/);
  });

  it("a local 3.10 makes 3.10 exact (bookworm's root hosts it); other requests keep their rule", () => {
    const local = localPythonBase({ prefix: "/opt/py310", version: "3.10.13" });
    expect(local).toEqual({ python: "3.10", suite: "bookworm", local: { prefix: "/opt/py310", version: "3.10.13" } });
    const bases = [local, ...PYTHON_BASES];
    expect(choosePython("3.10", bases)).toMatchObject({
      python: "3.10",
      rule: "exact",
      local: { prefix: "/opt/py310" },
    });
    expect(choosePython("3.8", bases)).toMatchObject({ python: "3.9", suite: "bullseye", rule: "nearest-newer" });
    expect(choosePython("3.11", bases).local).toBeUndefined();
    // A local Python listed first wins over a suite's of the same version.
    const local311 = localPythonBase({ prefix: "/opt/py311", version: "3.11.7" });
    expect(choosePython("3.11", [local311, ...PYTHON_BASES]).local?.prefix).toBe("/opt/py311");
  });

  it("names its own base: the key and the recipe's hash differ from the suite's, and between prefixes", () => {
    const a = localPythonBase({ prefix: "/opt/a", version: "3.10.13" });
    const b = localPythonBase({ prefix: "/opt/b", version: "3.10.13" });
    expect(new Set([baseKey(a), baseKey(b), baseKey(PYTHON_BASES[1]!)]).size).toBe(3);
    const hashes = [baseRecipe("bookworm"), baseRecipe("bookworm", a.local), baseRecipe("bookworm", b.local)].map(
      baseRecipeHash,
    );
    expect(new Set(hashes).size).toBe(3);
  });
});
