import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// End to end: scripts/run-notebooks.mjs with the real tslab kernel and Debian Jupyter.
// tslab reports a failing cell only through the execute_reply status and the cell's
// stderr, so these check that the runner still finds the cell and its message.

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(tmpdir(), "loclab-run-notebooks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeNotebook(name: string, cells: string[]): string {
  const path = join(dir, `${name}.ipynb`);
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { kernelspec: { name: "loclab-tslab", display_name: "TypeScript (loclab)", language: "typescript" } },
    cells: cells.map((source, i) => ({
      cell_type: "code",
      id: `cell-${i}`,
      metadata: {},
      execution_count: null,
      outputs: [],
      source,
    })),
  };
  writeFileSync(path, JSON.stringify(notebook));
  return path;
}

function runNotebooks(...paths: string[]): { status: number | null; stdout: string } {
  const result = spawnSync(
    process.execPath,
    ["scripts/run-notebooks.mjs", "--output-dir", join(dir, "out"), ...paths],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  );
  return { status: result.status, stdout: result.stdout + result.stderr };
}

describe("run-notebooks", () => {
  it("passes a notebook whose cells succeed, even if one writes to stderr", () => {
    const ok = writeNotebook("ok", [
      'console.log("hi");',
      'console.warn("only a warning");',
      "const n: number = await Promise.resolve(1);",
    ]);
    const { status, stdout } = runNotebooks(ok);
    expect(stdout).toMatch(/^PASS .*ok\.ipynb \(\d+\.\d s\)$/m);
    expect(stdout).toMatch(/^notebooks: 1 passed, 0 failed$/m);
    expect(status).toBe(0);
  });

  it("names the failing cell and prints the thrown error and the skipped cells", () => {
    const throws = writeNotebook("throws", [
      'console.log("fine");',
      'throw new Error("gold file missing: x.py");',
      'console.log("never");',
    ]);
    const typeError = writeNotebook("type-error", ['const total: number = "three";']);
    const { status, stdout } = runNotebooks(throws, typeError);
    expect(stdout).toMatch(/^FAIL .*throws\.ipynb/m);
    expect(stdout).toContain('  cell 2:\n    | throw new Error("gold file missing: x.py");');
    expect(stdout).toContain("Error: gold file missing: x.py");
    expect(stdout).toContain("not run after the error: cells 3");
    expect(stdout).toMatch(/^FAIL .*type-error\.ipynb/m);
    expect(stdout).toContain("Type 'string' is not assignable to type 'number'.");
    expect(stdout).toMatch(/^notebooks: 0 passed, 2 failed$/m);
    expect(status).toBe(1);
  });
});
