import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The tslab kernel compiles cells to CommonJS and require()s packages through their
// top-level "main" (it ignores "exports"). Node 20 can require() an ES module only if
// its import graph has no top-level await, so one static import of such a module (vega
// is one) makes a package unusable from notebooks. Needs the packages built (npm run build).

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const notebooksDir = join(repoRoot, "notebooks");

/** `@loclab/*` packages named in import/require statements of committed notebooks. */
function packagesUsedByNotebooks(): string[] {
  const used = new Set<string>();
  for (const name of readdirSync(notebooksDir).filter((file) => file.endsWith(".ipynb"))) {
    const notebook = JSON.parse(readFileSync(join(notebooksDir, name), "utf8")) as {
      cells: { cell_type: string; source: string | string[] }[];
    };
    for (const cell of notebook.cells.filter((c) => c.cell_type === "code")) {
      const source = Array.isArray(cell.source) ? cell.source.join("") : cell.source;
      for (const match of source.matchAll(/(?:from\s+|require\()\s*["'](@loclab\/[\w-]+)["']/g))
        used.add(match[1] ?? "");
    }
  }
  return [...used].sort();
}

describe("packages used by notebooks", () => {
  const packages = packagesUsedByNotebooks();

  it("include the charts package", () => {
    expect(packages).toContain("@loclab/charts");
  });

  it.each(packages)("%s has top-level main and types, and loads with require() from notebooks/", (name) => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "node_modules", name, "package.json"), "utf8")) as {
      main?: string;
      types?: string;
    };
    expect(manifest.main, "tslab reads main, not exports").toMatch(/\.js$/);
    expect(manifest.types, "tslab type-checks cells against types").toMatch(/\.d\.ts$/);
    const result = spawnSync(process.execPath, ["-e", `require(${JSON.stringify(name)})`], {
      cwd: notebooksDir,
      encoding: "utf8",
    });
    expect(result.stderr, `require(${name}) failed; is it built (npm run build)?`).toBe("");
    expect(result.status).toBe(0);
  });
});
