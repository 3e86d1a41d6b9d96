import { existsSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { type RunRecord, RunRecordSchema, runLayout } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRunSpec, type RunEvent, shuffledCopyFolder, startRun } from "../src/index.js";

// Preparation off the model slot, on a real run: the toy benchmark's real git mirrors, real
// checkouts and shuffled copies, the policy model server over real HTTP, one slot. What the
// test looks at is outside the scheduler: the cache on disk at the moment a slot is taken.
let toy: ToyBenchmark;
let policy: PolicyModelServer;
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 3 });
  policy = await startPolicyModelServer();
});
afterAll(async () => {
  await policy?.close();
  await toy?.dispose();
});

const ledger = (dir: string): RunRecord[] =>
  readFileSync(runLayout.ledger(dir), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => RunRecordSchema.parse(JSON.parse(line)));

describe("preparation ahead of the endpoint slot", () => {
  it("every shuffled attempt takes its slot with its shuffled copy already in the cache, and the run's outcomes are those of a run on the copies made", async () => {
    const dir = await mkdtemp(join(tmpdir(), "loclab-prepare-"));
    const cacheDir = join(dir, "cache");
    const spec = (out: string) =>
      parseRunSpec({
        benchmark: toy.benchmark,
        seeds: [1],
        controls: [{ kind: "shuffled", seed: 7 }, { kind: "plain" }],
        endpoints: [{ baseURL: policy.url, model: "toy-policy", maxConcurrency: 1 }],
        repos: toy.mirrors,
        cacheDir,
        preparation: { concurrency: 2 },
        out: join(dir, out),
        retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2, requestRetries: 0 },
      });
    const byId = new Map(toy.rows.map((row) => [row.instance_id, row]));
    const atSlot: { instanceId: string; cell: string; copyThere: boolean; treeThere: boolean }[] = [];
    const onEvent = (event: RunEvent) => {
      if (event.type !== "attempt-start") return;
      const row = byId.get(event.instanceId);
      if (!row) throw new Error(`no toy row ${event.instanceId}`);
      const copy = shuffledCopyFolder(cacheDir, row.repo, row.base_commit, 7);
      atSlot.push({
        instanceId: event.instanceId,
        cell: event.cell,
        copyThere: existsSync(join(copy, "mapping.json")) && existsSync(join(copy, "tree")),
        treeThere: existsSync(join(cacheDir, row.repo.replace("/", "__"), row.base_commit, "tree")),
      });
    };
    const first = await startRun(spec("first"), { onEvent });
    expect(first.complete).toBe(true);
    expect(first.keys).toBe(2 * toy.rows.length);
    const shuffled = atSlot.filter((seen) => seen.cell.includes("shuffled"));
    expect(shuffled).toHaveLength(toy.rows.length);
    // The copy (and the checkout it is made from) is on disk when the slot is taken: the slot
    // never waited for a checkout or a shuffle. Without preparation ahead, the first attempt at
    // each commit made its copy while holding the slot.
    expect(shuffled.filter((seen) => !seen.copyThere)).toEqual([]);
    expect(atSlot.filter((seen) => !seen.treeThere)).toEqual([]);
    // A second run over the same cache (the copies made before it) records the same outcomes
    // and predictions: preparing ahead changes when the work is done, not what the model sees.
    const again = await startRun(spec("again"), { onEvent: () => undefined });
    expect(again.outcomes).toEqual(first.outcomes);
    expect(again.predicted).toBe(first.predicted);
    const summary = (records: RunRecord[]) =>
      records
        .map(
          (record) =>
            `${JSON.stringify(record.control)} ${record.instanceId} ${record.outcome} ${JSON.stringify(record.prediction?.locations ?? null)}`,
        )
        .sort();
    expect(summary(ledger(join(dir, "again")))).toEqual(summary(ledger(join(dir, "first"))));
    expect(ledger(join(dir, "first")).every((record) => record.outcome !== "failed")).toBe(true);
  });

  it("refuses a preparation concurrency below 1, naming the field", () => {
    expect(() =>
      parseRunSpec({
        benchmark: toy.benchmark,
        endpoints: [{ baseURL: policy.url, model: "toy-policy" }],
        repos: toy.mirrors,
        preparation: { concurrency: 0 },
        out: join(tmpdir(), "never"),
      }),
    ).toThrow(/preparation\.concurrency/);
  });
});
