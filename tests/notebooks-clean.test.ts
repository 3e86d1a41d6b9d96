import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Committed notebooks are inputs, not results: outputs belong in results/notebooks
// (written by `npm run test:notebooks`). Stripped notebooks keep diffs reviewable and stop
// stale figures or local paths from being committed.

const notebooksDir = join(dirname(fileURLToPath(import.meta.url)), "..", "notebooks");
const notebooks = readdirSync(notebooksDir)
  .filter((name) => name.endsWith(".ipynb"))
  .sort();

interface Cell {
  cell_type: string;
  id?: unknown;
  source: unknown;
  metadata: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: unknown;
}

function isMultilineString(value: unknown): boolean {
  return typeof value === "string" || (Array.isArray(value) && value.every((line) => typeof line === "string"));
}

describe("committed notebooks", () => {
  it("exist", () => {
    expect(notebooks).toContain("datasets.ipynb");
  });

  describe.each(notebooks)("%s", (name) => {
    const raw = readFileSync(join(notebooksDir, name), "utf8");

    it("is nbformat 4 JSON with well-formed cells", () => {
      const notebook = JSON.parse(raw) as {
        nbformat: unknown;
        nbformat_minor: unknown;
        metadata: unknown;
        cells: Cell[];
      };
      expect(notebook.nbformat).toBe(4);
      expect(Number.isInteger(notebook.nbformat_minor)).toBe(true);
      expect(typeof notebook.metadata).toBe("object");
      expect(Array.isArray(notebook.cells)).toBe(true);
      const ids = new Set<unknown>();
      for (const cell of notebook.cells) {
        expect(["code", "markdown", "raw"]).toContain(cell.cell_type);
        expect(isMultilineString(cell.source)).toBe(true);
        expect(typeof cell.metadata).toBe("object");
        // nbformat 4.5 made cell ids mandatory and unique.
        if ((notebook.nbformat_minor as number) >= 5) {
          expect(cell.id).toMatch(/^[a-zA-Z0-9-_]{1,64}$/);
          expect(ids.has(cell.id)).toBe(false);
          ids.add(cell.id);
        }
      }
    });

    it("has no outputs, execution counts or execution metadata", () => {
      const { cells } = JSON.parse(raw) as { cells: Cell[] };
      const dirty = cells
        .map((cell, index) => ({ cell, number: index + 1 }))
        .filter(
          ({ cell }) =>
            cell.cell_type === "code" &&
            ((cell.outputs ?? []).length > 0 ||
              cell.execution_count !== null ||
              "execution" in cell.metadata ||
              "loclab" in cell.metadata),
        )
        .map(({ number }) => number);
      expect(dirty, `cells with outputs or run metadata (clear them before committing)`).toEqual([]);
    });

    it('uses the project kernel "loclab-tslab"', () => {
      const { metadata } = JSON.parse(raw) as { metadata: { kernelspec?: Record<string, unknown> } };
      expect(metadata.kernelspec).toMatchObject({
        name: "loclab-tslab",
        display_name: "TypeScript (loclab)",
        language: "typescript",
      });
    });
  });
});
