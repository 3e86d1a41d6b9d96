import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildToyBenchmark } from "@loclab/fixtures";
import { localizationBreakdown, readRunStatus, scoreRun } from "@loclab/runner";
import { cellLabel, readRunFolder, readRunManifest, RunFolderVersionError, runLayout } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import { scratch } from "./helpers.js";

// A run folder written by loclab 0.1.0 (tests/fixtures/run-folder-0.1.0: layout 1, no `kind` on
// sessions, pairings and score.json) is read by this version through the run folder's schemas,
// and scored to the same numbers that version wrote.
const FIXTURE = join(import.meta.dirname, "fixtures", "run-folder-0.1.0");
const WRITTEN_AT = "/work/evidence/issue34/old-run";

async function oldRunFolder(): Promise<string> {
  const root = scratch("loclab-run-folder-0.1.0-");
  cpSync(join(FIXTURE, "run"), join(root, "run"), { recursive: true });
  await buildToyBenchmark({ dir: join(root, "toy"), repositories: 2, instancesPerRepository: 1 });
  for (const file of ["manifest.json", "sessions.jsonl"]) {
    const path = join(root, "run", file);
    writeFileSync(path, readFileSync(path, "utf8").replaceAll(WRITTEN_AT, root));
  }
  return join(root, "run");
}

describe("a run folder written by loclab 0.1.0", () => {
  it("is read through the schemas: layout 1, its ledger, sessions, pairing and score", async () => {
    const folder = await readRunFolder(await oldRunFolder());
    expect(folder.layout).toBe(1);
    expect(folder.records).toHaveLength(16);
    expect(folder.unreadable).toEqual([]);
    expect(folder.sessions).toHaveLength(1);
    expect(folder.pairings.get(7)?.pairs.map((pair) => [pair.instanceId, pair.snapshotOf])).toEqual([
      ["acme__abacus-1", "acme__beacon-1"],
      ["acme__beacon-1", "acme__abacus-1"],
    ]);
    expect(folder.score?.cells).toHaveLength(8);
    // The predictions derived from the ledger are the lines the old runner appended, cell by cell.
    for (const [cell, predictions] of folder.predictions) {
      const lines = readFileSync(runLayout.predictions(folder.dir, cell), "utf8").split("\n").filter(Boolean);
      expect(predictions.map((prediction) => JSON.stringify(prediction)).sort()).toEqual(lines.sort());
    }
  });

  it("is scored by this version to the numbers that version wrote", async () => {
    const dir = await oldRunFolder();
    const old = (await readRunFolder(dir)).score;
    const score = await scoreRun(dir, { write: false });
    expect(score.instanceIds).toEqual(old?.instanceIds);
    // The gold came from the same mirrors, moved with the folder.
    expect(score.goldSource).toBe(old?.goldSource.replace(WRITTEN_AT, dirname(dir)));
    expect(score.cells).toEqual(old?.cells);
    expect(score.acrossSeeds).toEqual(old?.acrossSeeds);
    expect(score.comparisons).toEqual(old?.comparisons);
    expect(score.attempts).toEqual(old?.attempts);
    const status = await readRunStatus(dir);
    expect(status.summary).toMatchObject({ keys: 16, done: 16, predicted: 16, complete: true });
  });

  it("is broken down by the analysis package from what the schemas read: every key by its final record", async () => {
    const dir = await oldRunFolder();
    const { records } = await readRunFolder(dir);
    const breakdown = await localizationBreakdown(dir);
    expect(breakdown.problems).toEqual([]);
    expect(breakdown.rows).toHaveLength(8);
    // Tallied here from the ledger alone: each record's cell and outcome (every key has one final record).
    const finished = new Map<string, number>();
    for (const record of records) {
      const cell = cellLabel({ seed: record.seed, control: record.control });
      if (record.outcome === "finished") finished.set(cell, (finished.get(cell) ?? 0) + 1);
    }
    for (const row of breakdown.rows) {
      expect(row).toMatchObject({ keys: 2, open: 0, finished: finished.get(row.cell) ?? 0 });
      expect(row.finished + row.forcedFinal + row.invalidFinal + row.stepLimit + row.modelError).toBe(2);
    }
    expect(breakdown.comparisons).toEqual((await scoreRun(dir, { write: false })).comparisons);
  });

  it("a folder of a newer layout is refused, naming both layouts", async () => {
    const dir = await oldRunFolder();
    const manifest = JSON.parse(readFileSync(runLayout.manifest(dir), "utf8"));
    writeFileSync(
      runLayout.manifest(dir),
      JSON.stringify({ ...manifest, layout: 99, loclab: { ...manifest.loclab, version: "9.0.0" } }),
    );
    await expect(readRunManifest(dir)).rejects.toThrow(RunFolderVersionError);
    await expect(readRunManifest(dir)).rejects.toThrow(
      /layout 99 \(written by loclab 9\.0\.0\); this loclab reads layouts 1 to 2/,
    );
  });
});
