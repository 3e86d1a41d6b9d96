import { existsSync, readdirSync, readFileSync, writeFileSync, appendFileSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PolicyModelServer, startPolicyModelServer, startScriptedModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { type RunRecord, RunRecordSchema, runLayout } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EndpointsNotReadyError,
  parseRunSpec,
  readRunStatus,
  resumeRun,
  RunFolderError,
  type RunEvent,
  type RunSpecInput,
  scoreRun,
  startRun,
} from "../src/index.js";

// Real runs: the toy benchmark (4 repositories made with real git, 3 instances each), the
// policy model server (real HTTP, answers from real tool observations), real workspaces,
// real shuffled copies.
let toy: ToyBenchmark;
let servers: PolicyModelServer[] = [];
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 4, instancesPerRepository: 3 });
  servers = [await startPolicyModelServer(), await startPolicyModelServer()];
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await toy.dispose();
});

const ALL_CONTROLS = [
  { kind: "plain" },
  { kind: "masked" },
  { kind: "shuffled", seed: 7 },
  { kind: "mismatch", seed: 7 },
] as const;
async function specFor(extra: Partial<RunSpecInput> = {}) {
  const out = await mkdtemp(join(tmpdir(), "loclab-run-"));
  return parseRunSpec({
    benchmark: toy.benchmark,
    seeds: [1, 2],
    controls: [...ALL_CONTROLS],
    endpoints: servers.map((server) => ({ baseURL: server.url, model: "toy-policy", maxConcurrency: 3 })),
    repos: toy.mirrors,
    out: join(out, "run"),
    retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2 },
    ...extra,
  });
}
const ledger = (dir: string): RunRecord[] =>
  readFileSync(runLayout.ledger(dir), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => RunRecordSchema.parse(JSON.parse(line)));
const finalsByKey = (records: RunRecord[]) => {
  const finals = new Map<string, number>();
  for (const record of records)
    if (!["infra_error", "failed"].includes(record.outcome)) finals.set(record.key, (finals.get(record.key) ?? 0) + 1);
  return finals;
};
const predictionLines = (dir: string, cell: string) =>
  readFileSync(runLayout.predictions(dir, cell), "utf8")
    .split("\n")
    .filter(Boolean)
    .map(
      (line) => JSON.parse(line) as { instanceId: string; files: string[]; seed: number; control: { kind: string } },
    );

describe("a run: seeds × controls × instances across a pool", () => {
  it("runs every key once; predictions carry seed and control; shuffled ones come back in original names; mismatch gets another repository", async () => {
    const spec = await specFor();
    const events: RunEvent[] = [];
    const summary = await startRun(spec, { onEvent: (event) => events.push(event) });
    expect(summary).toMatchObject({ keys: 12 * 8, done: 96, predicted: 96, complete: true, failuresThisSession: 0 });
    const records = ledger(spec.out);
    expect(records).toHaveLength(96);
    expect([...finalsByKey(records).values()].every((n) => n === 1)).toBe(true);
    expect(new Set(records.map((record) => record.endpoint?.baseURL)).size).toBe(2);
    const rowOf = new Map(toy.rows.map((row) => [row.instance_id, row]));
    for (const cell of ["seed-1/plain", "seed-2/masked-modules", "seed-1/shuffled-7", "seed-2/mismatch-7"]) {
      const lines = predictionLines(spec.out, cell);
      expect(lines).toHaveLength(12);
      expect(
        lines.every((line) => line.seed === Number(cell[5]) && line.control.kind === cell.split("/")[1]?.split("-")[0]),
      ).toBe(true);
      for (const line of lines) {
        const row = rowOf.get(line.instanceId);
        const repo = row?.repo.split("/")[1] as string;
        if (cell.includes("mismatch"))
          expect(line.files[0]?.startsWith(`${repo}/`), `${cell} ${line.instanceId} ${line.files[0]}`).toBe(false);
        else expect(line.files[0], `${cell} ${line.instanceId}`).toMatch(new RegExp(`^${repo}/(cli|core/\\w+)\\.py$`));
      }
    }
    // The mapping never reaches the model: shuffled trajectories hold no original path of the gold files.
    const shuffledDir = join(spec.out, "trajectories", "seed-1", "shuffled-7");
    for (const instance of readdirSync(shuffledDir)) {
      const text = readFileSync(join(shuffledDir, instance, "attempt-1.traj.jsonl"), "utf8");
      const row = rowOf.get(instance);
      expect(text.includes(row?.file as string), `${instance} shows ${row?.file}`).toBe(false);
      expect(text).not.toContain("mapping.json");
    }
    const manifest = JSON.parse(readFileSync(runLayout.manifest(spec.out), "utf8")) as {
      endpoints: { ready: boolean; models: { data: { id: string }[] } }[];
      node: string;
      packages: Record<string, string>;
      cells: string[];
    };
    expect(manifest.endpoints.map((endpoint) => endpoint.ready)).toEqual([true, true]);
    expect(manifest.endpoints[0]?.models.data[0]?.id).toBe("toy-policy");
    expect(manifest.node).toBe(process.version);
    expect(manifest.packages["@loclab/runner"]).toBe("0.1.0");
    expect(manifest.cells).toHaveLength(8);
    expect(events.filter((event) => event.type === "attempt-end")).toHaveLength(96);

    // The results: file.acc@1 per cell equals the share of predictions whose first file is the row's gold file.
    const score = await scoreRun(spec.out);
    for (const cell of score.cells) {
      const lines = predictionLines(spec.out, cell.cell);
      const expected =
        lines.filter((line) => line.files[0] === rowOf.get(line.instanceId)?.file).length / toy.rows.length;
      expect(cell.metrics["file.acc@1"], cell.cell).toBeCloseTo(expected, 12);
    }
    const across = (control: string) =>
      score.acrossSeeds.find((row) => row.control === control && row.metric === "file.acc@1");
    expect(across("mismatch:7")?.mean).toBe(0);
    expect(across("plain")?.formatted).toMatch(/^\d+\.\d\d ± \d+\.\d\d$/);
    const pooled = score.comparisons.find((row) => row.control === "mismatch:7" && row.seed === "pooled");
    expect(pooled).toMatchObject({ pairs: 24, c: 0 });
    expect(pooled?.p).toBeLessThan(0.001);
    expect(existsSync(join(spec.out, "results", "comparisons.csv"))).toBe(true);
    expect(readFileSync(join(spec.out, "export", "seed-1-plain.jsonl"), "utf8").split("\n")[0]).toMatch(
      /^\{"instance_id":"acme__abacus-1","model_name_or_path":"toy-policy","found_files":\[/,
    );

    const status = await readRunStatus(spec.out);
    expect(status.summary.complete).toBe(true);
    expect(status.runner).toBeNull();
    expect(status.cells.every((cell) => cell.done === 12)).toBe(true);
    expect(status.duplicateFinals).toBe(0);

    // Started again: nothing left to do, nothing run.
    const again = await startRun(spec);
    expect(again).toMatchObject({ done: 96, attemptsThisSession: 0, complete: true });
    expect(ledger(spec.out)).toHaveLength(96);
  });

  it("resumes after a kill: a torn ledger line set aside, an attempt without a record marked interrupted, a missing prediction line mended, the rest run once", async () => {
    const spec = await specFor({
      seeds: [1],
      controls: [{ kind: "plain" }, { kind: "masked" }],
      budgets: { run: { tokens: 1 } },
    });
    const first = await startRun(spec);
    expect(first.complete).toBe(false);
    expect(first.stoppedBy).toBe("run-token-budget");
    const done = ledger(spec.out);
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(24);
    // What a kill leaves: half a ledger line, a trajectory without a record, a prediction line lost.
    const open = toy.rows
      .map((row) => row.instance_id)
      .find((id) => !done.some((record) => record.instanceId === id && record.control.kind === "plain")) as string;
    const trajectoryDir = runLayout.trajectoryDir(spec.out, "seed-1/plain", open);
    const { mkdirSync } = await import("node:fs");
    mkdirSync(trajectoryDir, { recursive: true });
    writeFileSync(join(trajectoryDir, "attempt-1.traj.jsonl"), '{"kind":"loclab.trajectory","type":"header"');
    const predictions = runLayout.predictions(
      spec.out,
      done[0]?.control.kind === "plain" ? "seed-1/plain" : "seed-1/masked-modules",
    );
    const kept = readFileSync(predictions, "utf8").split("\n").filter(Boolean);
    writeFileSync(
      predictions,
      kept
        .slice(1)
        .map((line) => `${line}\n`)
        .join(""),
    );
    appendFileSync(runLayout.ledger(spec.out), '{"kind":"loclab.run-record","schemaVersion":1,"key":"ab');

    const notes: string[] = [];
    const resumed = await resumeRun(spec.out, {
      onEvent: (event) => event.type === "note" && notes.push(event.message),
    });
    expect(resumed.complete).toBe(false); // the token budget of 1 is still spent: nothing new starts
    expect(notes.some((note) => note.includes("a torn last line") && note.includes("set aside"))).toBe(true);
    expect(notes.some((note) => note.includes("missing from") && note.includes("rebuilt from the ledger"))).toBe(true);
    expect(readFileSync(predictions, "utf8").split("\n").filter(Boolean)).toHaveLength(kept.length);
    const interrupted = ledger(spec.out).filter((record) => record.error?.startsWith("interrupted"));
    expect(interrupted.map((record) => [record.instanceId, record.attempt, record.outcome])).toEqual([
      [open, 1, "failed"],
    ]);

    // Lift the budget: the run's budget is how to run it, not what it is, so the same run goes on.
    const finished = await startRun(
      parseRunSpec({ ...JSON.parse(readFileSync(runLayout.manifest(spec.out), "utf8")).spec, budgets: { run: {} } }),
    );
    expect(finished).toMatchObject({ keys: 24, done: 24, complete: true });
    const records = ledger(spec.out);
    const finals = finalsByKey(records);
    expect(finals.size).toBe(24);
    expect([...finals.values()].every((n) => n === 1)).toBe(true);
    expect(
      records.find(
        (record) => record.instanceId === open && record.control.kind === "plain" && record.outcome === "finished",
      )?.attempt,
    ).toBe(2);
    for (const cell of ["seed-1/plain", "seed-1/masked-modules"]) {
      const ids = predictionLines(spec.out, cell).map((line) => line.instanceId);
      expect(new Set(ids).size, cell).toBe(12);
      expect(ids, cell).toHaveLength(12);
    }
  });

  it("refuses a folder that holds another run's manifest, before writing anything", async () => {
    const spec = await specFor({ seeds: [1], controls: [{ kind: "plain" }], instances: { slice: { end: 2 } } });
    await startRun(spec);
    const before = readFileSync(runLayout.ledger(spec.out), "utf8");
    const other = parseRunSpec({ ...JSON.parse(readFileSync(runLayout.manifest(spec.out), "utf8")).spec, seeds: [9] });
    await expect(startRun(other)).rejects.toThrow(RunFolderError);
    await expect(startRun(other)).rejects.toThrow(
      `${runLayout.manifest(spec.out)} holds another run (its spec differs at $.seeds[0])`,
    );
    expect(readFileSync(runLayout.ledger(spec.out), "utf8")).toBe(before);
  });

  it("with no endpoint ready nothing starts; with one of two down, the other takes every attempt", async () => {
    const dead = await startPolicyModelServer();
    await dead.close();
    const none = await specFor({ endpoints: [{ baseURL: dead.url, model: "toy-policy" }] });
    await expect(startRun(none)).rejects.toThrow(EndpointsNotReadyError);
    await expect(startRun(none)).rejects.toThrow(
      /no endpoint is ready, nothing was started: endpoints\[0\] http:\/\/127\.0\.0\.1:\d+\/v1: http:\/\/127\.0\.0\.1:\d+ unreachable: ECONNREFUSED/,
    );
    expect(existsSync(runLayout.manifest(none.out))).toBe(false);
    const wrongModel = await specFor({ endpoints: [{ baseURL: servers[0]?.url as string, model: "Qwen/Qwen3-8B" }] });
    await expect(startRun(wrongModel)).rejects.toThrow(
      `/v1/models does not list "Qwen/Qwen3-8B" (it serves "toy-policy")`,
    );

    const half = await specFor({
      seeds: [1],
      controls: [{ kind: "plain" }],
      endpoints: [
        { baseURL: dead.url, model: "toy-policy", maxConcurrency: 4 },
        { baseURL: servers[1]?.url as string, model: "toy-policy", maxConcurrency: 2 },
      ],
    });
    const summary = await startRun(half);
    expect(summary.complete).toBe(true);
    expect(new Set(ledger(half.out).map((record) => record.endpoint?.baseURL))).toEqual(new Set([servers[1]?.url]));
    const manifest = JSON.parse(readFileSync(runLayout.manifest(half.out), "utf8")) as {
      endpoints: { ready: boolean; problem?: string }[];
    };
    expect(manifest.endpoints[0]).toMatchObject({ ready: false });
    expect(manifest.endpoints[0]?.problem).toContain("ECONNREFUSED");
  });

  it("transport faults are retried and recorded, never shown to the model; an endpoint that dies mid-run hands its keys to the others", async () => {
    const flaky = await startPolicyModelServer({ faultRate: 0.3, faultSeed: 3 });
    const dying = await startPolicyModelServer({ delayMs: 30 });
    const steady = await startPolicyModelServer({ delayMs: 5 });
    try {
      const spec = await specFor({
        seeds: [1],
        controls: [{ kind: "plain" }, { kind: "masked" }],
        endpoints: [flaky, dying, steady].map((server) => ({
          baseURL: server.url,
          model: "toy-policy",
          maxConcurrency: 2,
        })),
        retry: { backoffSeconds: 0, requestRetries: 2, probeSeconds: 0.05, healthSeconds: 0.1, breakerFailures: 3 },
      });
      let killed = false;
      const summary = await startRun(spec, {
        onEvent: (event) => {
          if (!killed && event.type === "attempt-end") {
            killed = true;
            void dying.close();
          }
        },
      });
      expect(summary.complete).toBe(true);
      const records = ledger(spec.out);
      const finals = finalsByKey(records);
      expect(finals.size).toBe(24);
      expect([...finals.values()].every((n) => n === 1)).toBe(true);
      // Every fault the flaky server injected is on record: retried ones in `retries`, the last of a failed call as its infra_error.
      const injected = [...flaky.faults.values()].reduce((sum, n) => sum + n, 0);
      const flakyRecords = records.filter((record) => record.endpoint?.baseURL === flaky.url);
      const recorded =
        flakyRecords.reduce((sum, record) => sum + record.retries.length, 0) +
        flakyRecords.filter((record) => record.outcome === "infra_error").length;
      expect(injected).toBeGreaterThan(0);
      expect(recorded).toBe(injected);
      // No fault text reached a model: no request body carries one.
      for (const server of [flaky, steady]) {
        for (const request of server.requests)
          expect(request.raw).not.toMatch(/scripted fault|Unexpected end of JSON|chatcmpl-broken/);
      }
      const afterDeath = records.filter(
        (record) => record.endpoint?.baseURL === dying.url && record.outcome !== "infra_error",
      );
      expect(afterDeath.length).toBeLessThanOrEqual(2 + 2);
      expect(records.filter((record) => record.endpoint?.baseURL === steady.url).length).toBeGreaterThan(8);
    } finally {
      await Promise.all([flaky.close(), steady.close(), dying.close().catch(() => undefined)]);
    }
  });

  it("a model-caused outcome is final and never retried", async () => {
    const talker = await startScriptedModelServer({
      script: () => ({ content: "I think the bug is somewhere." }),
      models: ["toy-policy"],
    });
    try {
      const spec = await specFor({
        seeds: [1],
        controls: [{ kind: "plain" }],
        instances: { slice: { end: 2 } },
        localizer: { maxTurns: 3 },
        endpoints: [{ baseURL: talker.url, model: "toy-policy" }],
      });
      const summary = await startRun(spec);
      expect(summary.complete).toBe(true);
      expect(summary.predicted).toBe(0);
      const records = ledger(spec.out);
      expect(records.map((record) => [record.attempt, record.outcome])).toEqual([
        [1, "budget_exhausted"],
        [1, "budget_exhausted"],
      ]);
      expect(summary.noPrediction).toEqual({ budget_exhausted: 2 });
      await resumeRun(spec.out);
      expect(ledger(spec.out)).toHaveLength(2);
    } finally {
      await talker.close();
    }
  });
});

afterAll(() => {
  for (const name of readdirSync(tmpdir()))
    if (name.startsWith("loclab-run-")) rmSync(join(tmpdir(), name), { recursive: true, force: true });
});
