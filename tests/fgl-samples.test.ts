import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildCandidates, samplesFromRun } from "@loclab/fgl";
import { runLayout } from "@loclab/schemas";
import { stampRecord } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The K samples of a localizer run (docs/definitions.md §5): each seed's prediction in the run's
// plain cells, at the paths the runner writes (`runLayout`); masked and shuffled cells are not samples.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "loclab-fgl-run-"));
  const write = async (cell: string, lines: unknown[]) => {
    const file = runLayout.predictions(dir, cell);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, lines.map((line) => JSON.stringify(stampRecord(line as object))).join("\n") + "\n");
  };
  const prediction = (seed: number, startLine: number) => ({
    instanceId: "acme__calc-1",
    files: ["calc/ops.py"],
    locations: [{ path: "calc/ops.py", startLine, endLine: 12, role: "edit" }],
    seed,
    control: { kind: "plain" },
  });
  await write("seed-1/plain", [
    prediction(1, 8),
    { instanceId: "acme__calc-2", files: ["x.py"], locations: [], seed: 1, control: { kind: "plain" } },
  ]);
  await write("seed-2/plain", [prediction(2, 8)]);
  await write("seed-3/plain", [prediction(3, 10)]);
  await write("seed-1/masked-modules", [prediction(1, 1)]);
  await write("seed-none/plain", [{ ...prediction(0, 5), seed: null }]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("samplesFromRun", () => {
  it("collects each seed's plain prediction per instance; a prediction without locations is no sample", async () => {
    const samples = await samplesFromRun(dir);
    expect([...samples.keys()]).toEqual(["acme__calc-1"]);
    expect(samples.get("acme__calc-1")!.map((s) => [s.seed, s.locations[0]!.startLine])).toEqual([
      [1, 8],
      [2, 8],
      [3, 10],
      [null, 5],
    ]);
    // As candidates: seeds 1 and 2 answered the same and are one candidate.
    const candidates = buildCandidates({ task: "acme__calc-1", samples: samples.get("acme__calc-1")! });
    expect(candidates.map((c) => [c.id, c.provenance.duplicates ?? []])).toEqual([
      ["sample-seed-1", ["sample-seed-2"]],
      ["sample-seed-3", []],
      ["sample-seed-none", []],
    ]);
  });

  it("a folder that is not a run says so", async () => {
    await expect(samplesFromRun(join(dir, "nope"))).rejects.toThrow(/not a loclab run folder \(no cells\/\)/);
  });
});
