import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatCompletionRequest,
  type ScriptTurn,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "@loclab/agent";
import { connectDocker } from "@loclab/docker";
import { buildImage, prebuiltImageName } from "@loclab/evaluation";
import {
  buildCalcFixture,
  type CalcFixture,
  type CalcRepairTasks,
  calcReportNumber,
  writeCalcRepairTasks,
} from "@loclab/fixtures";
import {
  removeLeftovers,
  repairBreakdown,
  repairPredictions,
  repairRunTag,
  startRepairRun,
  writeRepairReport,
} from "@loclab/repair";
import { parseRunSpec, type RunSpecInput } from "@loclab/runner";
import { readRunFolder, type RunRecord, runLayout } from "@loclab/schemas";
import { runSite } from "@loclab/viewer";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, FIX, LOCATED, SUBMIT } from "./calc-fixer-calls.js";
import { loclab, loclabBin } from "./helpers.js";

// Repair runs end to end on CI's Docker engine: the runner's ledger over the scripted model
// server (real HTTP), each attempt the fixer in a container of the task's local instance image
// (built from the calc fixture's mirror), its final patch evaluated in a fresh container by the
// evaluation package (pytest, graded by the harness's rules). The tasks are the same calc bug;
// each problem statement ends in "(report N)" so that the script can tell them apart.
let docker: Docker;
let work: string;
let fixture: CalcFixture;
let tasks: CalcRepairTasks;
let server: ScriptedModelServer;

/**
 * What the scripted fixer does on each task (the n-th answer of an attempt is the n-th turn,
 * the last one repeated): 1 reads, fixes, submits; 2 edits the wrong file under seed 1 and fixes
 * under seed 2; 3 lists files until the call budget is spent (no patch); 4 first answers with an
 * output cut at the token limit (a loop candidate), then fixes; 5 fixes and adds a binary file;
 * 6 fixes and writes outside the repository; 7 fixes, then runs a command that sleeps ten minutes.
 * With two agents, every attempt first calls the
 * localizer, whose one answer is the location of `average`.
 */
function plan(task: number, seed: number | undefined): ScriptTurn[] {
  switch (task) {
    case 1:
      return [
        { toolCalls: [call("read_file", { path: "calc/ops.py" })] },
        { toolCalls: [FIX] },
        { toolCalls: [SUBMIT] },
      ];
    case 2:
      return seed === 2
        ? [{ toolCalls: [FIX] }, { toolCalls: [SUBMIT] }]
        : [
            {
              toolCalls: [
                call("edit_file", { path: "README.md", old_text: "A tiny calculator.", new_text: "A calculator." }),
              ],
            },
            { toolCalls: [SUBMIT] },
          ];
    case 3:
      return [{ toolCalls: [call("run_command", { command: "ls" })] }];
    case 4:
      return [
        { content: "average average average ".repeat(20), finishReason: "length" },
        { toolCalls: [FIX] },
        { toolCalls: [SUBMIT] },
      ];
    case 5:
      return [
        { toolCalls: [call("run_command", { command: "printf '\\000\\001\\377' > data.bin" })] },
        { toolCalls: [FIX] },
        { toolCalls: [SUBMIT] },
      ];
    case 6:
      return [
        { toolCalls: [call("run_command", { command: "echo outside > /tmp/outside.txt" })] },
        { toolCalls: [call("write_file", { path: "/etc/loclab-outside.txt", content: "outside\n" })] },
        { toolCalls: [FIX] },
        { toolCalls: [SUBMIT] },
      ];
    case 7:
      return [{ toolCalls: [FIX] }, { toolCalls: [call("run_command", { command: "sleep 600" })] }];
    default:
      return [{ toolCalls: [SUBMIT] }];
  }
}

function policy(request: ChatCompletionRequest): ScriptTurn {
  const text = request.messages
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
  const task = calcReportNumber(text) ?? 0;
  const tools = (request.tools ?? []).map((tool) => tool.function.name);
  const turn = request.messages.filter((message) => message.role === "assistant").length;
  if (tools.includes("submit_localization")) return { toolCalls: [LOCATED] };
  // Handed the location (the oracle arm), the fixer of task 1 edits at once instead of reading first.
  if (task === 1 && text.includes("Locations (best first):\n- calc/ops.py:12-12"))
    return [{ toolCalls: [FIX] }, { toolCalls: [SUBMIT] }][Math.min(turn, 1)]!;
  const steps = tools.includes("localizer")
    ? [{ toolCalls: [call("localizer", { focus: "the mean" })] }, ...plan(task, request.seed)]
    : plan(task, request.seed);
  return steps[Math.min(turn, steps.length - 1)]!;
}

beforeAll(async () => {
  ({ docker } = await connectDocker({}));
  work = mkdtempSync(join(tmpdir(), "loclab-repair-run-"));
  fixture = await buildCalcFixture({ dir: join(work, "calc") });
  tasks = await writeCalcRepairTasks(fixture, { count: 7, dir: work });
  server = await startScriptedModelServer({ script: (request) => policy(request) });
});
afterAll(async () => {
  await server?.close();
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

/** A repair run spec over the calc tasks, the scripted server, the run's own caches. */
function spec(name: string, fields: Partial<RunSpecInput> & { repair?: Record<string, unknown> }) {
  const { repair, ...rest } = fields;
  return parseRunSpec({
    kind: "repair",
    benchmark: tasks.benchmark,
    endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
    repos: fixture.mirrors,
    out: join(work, name),
    cacheDir: join(work, "workspaces"),
    retry: { requestRetries: 0, attemptsPerKey: 1 },
    ...rest,
    repair: {
      callBudget: 6,
      wallSeconds: 300,
      evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations") },
      ...repair,
    },
  });
}

const finals = (records: readonly RunRecord[]) => records.filter((record) => record.outcome === "evaluated");
const byCell = (records: readonly RunRecord[], cell: string) =>
  new Map(
    finals(records)
      .filter((record) => `seed-${record.seed ?? "none"}/plain/${record.arm}` === cell)
      .map((record) => [record.instanceId, record]),
  );
const labelled = async (tag: string) =>
  (await docker.listContainers({ all: true, filters: { label: [`loclab.repair.run=${tag}`] } })).length +
  (await docker.listContainers({ all: true, filters: { label: [`loclab.eval.run=${tag}`] } })).length;

describe("repair runs (kind: repair) through the runner", () => {
  it("two arms × two seeds on four tasks: every key evaluated once; resolved, wrong patch, out of budget, loops; the 13-run table from the folder alone", async () => {
    const run = spec("arms", {
      instances: ["acme__calc-1", "acme__calc-2", "acme__calc-3", "acme__calc-4"],
      seeds: [1, 2],
      repair: { arms: ["single", "two-agent"] },
    });
    const summary = await startRepairRun(run);
    expect(summary).toMatchObject({ keys: 16, done: 16, complete: true });
    const folder = await readRunFolder(run.out);
    expect(finals(folder.records)).toHaveLength(16);
    expect(folder.manifest.cells).toEqual([
      "seed-1/plain/single",
      "seed-1/plain/two-agent",
      "seed-2/plain/single",
      "seed-2/plain/two-agent",
    ]);
    const single = byCell(folder.records, "seed-1/plain/single");
    // Task 1: fixed and submitted; the report beside the trajectory says so, as the harness writes it.
    const fixed = single.get("acme__calc-1")!;
    expect(fixed).toMatchObject({ exit: "submitted", arm: "single" });
    expect(fixed.repair).toMatchObject({
      resolved: true,
      calls: 2,
      callBudget: 6,
      evaluation: { status: "resolved", patchApplied: true },
      patch: { files: ["calc/ops.py"] },
    });
    const report = JSON.parse(readFileSync(join(run.out, fixed.repair!.evaluation.report!), "utf8"));
    expect(report["acme__calc-1"]).toMatchObject({ resolved: true, patch_successfully_applied: true });
    expect(readFileSync(join(run.out, fixed.repair!.patch.path), "utf8")).toContain(
      "+    return sum(values) / len(values)",
    );
    // Localization (before the first edit) and repair (after) apart: two model calls each.
    expect(fixed.repair!.phases.beforeFirstEdit.apiCalls).toBe(2);
    expect(fixed.repair!.phases.afterFirstEdit.apiCalls).toBe(1);
    // Task 2 under seed 1: a patch of the wrong file, applied, the tests still failing.
    expect(single.get("acme__calc-2")!.repair).toMatchObject({
      resolved: false,
      evaluation: { status: "unresolved", patchApplied: true },
      patch: { files: ["README.md"] },
    });
    // Task 3: out of calls, nothing changed: the empty patch is not run (the harness's empty_patch).
    expect(single.get("acme__calc-3")).toMatchObject({ exit: "call_limit" });
    expect(single.get("acme__calc-3")!.repair).toMatchObject({
      resolved: false,
      calls: 6,
      evaluation: { status: "empty-patch", patchApplied: null, report: null },
      patch: { bytes: 0, files: [] },
    });
    // Task 4: one answer cut at the output limit (a loop candidate), a nudge, then the fix.
    expect(single.get("acme__calc-4")!.repair).toMatchObject({
      resolved: true,
      recoveries: 1,
      loops: { count: 1 },
    });
    // Two agents: the localizer's one turn is charged to the shared budget; its trajectory is kept and linked.
    const two = byCell(folder.records, "seed-1/plain/two-agent");
    const located = two.get("acme__calc-1")!;
    // Its calls: the localizer's one turn, read_file and edit_file.
    expect(located.repair).toMatchObject({ resolved: true, calls: 3, agents: { localizer: { turns: 1 } } });
    expect(located.repair!.localizerTrajectories).toHaveLength(1);
    expect(existsSync(join(run.out, located.repair!.localizerTrajectories[0]!))).toBe(true);
    expect(two.get("acme__calc-3")!.repair!.calls).toBe(6);
    // Seed 2 fixes task 2 in both arms.
    expect(byCell(folder.records, "seed-2/plain/single").get("acme__calc-2")!.repair!.resolved).toBe(true);
    expect(byCell(folder.records, "seed-2/plain/two-agent").get("acme__calc-2")!.repair!.resolved).toBe(true);
    // No container of the run is left.
    expect(await labelled(repairRunTag(run.out))).toBe(0);

    // The 13-run table from the folder alone (one row per cell, the first the base).
    const { breakdown, open, problems } = await repairBreakdown(run.out);
    expect(open).toEqual([]);
    expect(problems).toEqual([]);
    const rows = Object.fromEntries(breakdown.rows.map((row) => [row.run, row]));
    const id = (n: number) => `acme__calc-${n}`;
    for (const cell of ["seed-1/plain/single", "seed-1/plain/two-agent"]) {
      expect(rows[cell]).toMatchObject({
        tasks: 4,
        solved: 2,
        outOfBudget: 1,
        wrongPatch: 1,
        noPatch: 0,
        loopsFinishLength: 1,
      });
      expect(rows[cell]!.ids.solved.sort()).toEqual([id(1), id(4)]);
      expect(rows[cell]!.ids.wrongPatch).toEqual([id(2)]);
      expect(rows[cell]!.ids.outOfBudget).toEqual([id(3)]);
      expect(rows[cell]!.ids.loopsFinishLength).toEqual([id(4)]);
    }
    for (const cell of ["seed-2/plain/single", "seed-2/plain/two-agent"])
      expect(rows[cell]).toMatchObject({ tasks: 4, solved: 3, outOfBudget: 1, wrongPatch: 0, noPatch: 0 });
    // Counted calls from the trajectories (the fixer's four tools; the refused call past the budget
    // is in the trajectory too): single seed 1 made 2, 1, 7 and 1 → median 1.5.
    expect(rows["seed-1/plain/single"]!.medianCalls).toBe(1.5);
    // Each cell against the base (seed-1/plain/single), exact McNemar: seed 2 solves one more (task 2).
    expect(rows["seed-1/plain/single"]!.vsBase).toBeNull();
    expect(rows["seed-2/plain/single"]!.vsBase).toMatchObject({ n: 4, baseOnly: 0, runOnly: 1, p: 1 });
    expect(breakdown.everSolved).toBe(3);

    // The viewer's site of the run (loclab report): a row per task × cell with `resolved` as the
    // pair view's binary; task 1's page has its patch beside the gold patch and the harness's tests.
    const site = await runSite(run.out);
    expect(site.summary.problems).toEqual([]);
    expect(site.summary.binary).toBe("resolved");
    expect(site.summary.rows.t).toHaveLength(16);
    const at = site.summary.rows.instance!.findIndex(
      (id, i) => id === "acme__calc-1" && site.summary.rows.cell![i] === "seed-1/plain/single",
    );
    expect(site.summary.rows.resolved![at]).toBe(1);
    const view = await site.trajectories[site.summary.rows.t![at] as number]!.view();
    expect(view.repair).toMatchObject({ resolved: true, status: "resolved" });
    expect(view.repair!.patch).toBe(readFileSync(join(run.out, fixed.repair!.patch.path), "utf8"));
    const benchmarkRow = readFileSync(run.benchmark, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { instance_id: string; patch: string })
      .find((row) => row.instance_id === "acme__calc-1")!;
    expect(view.repair!.goldPatch).toBe(benchmarkRow.patch);
    const status = report["acme__calc-1"].tests_status as Record<string, { success: string[]; failure: string[] }>;
    for (const expected of ["FAIL_TO_PASS", "PASS_TO_PASS"] as const) {
      const shown = view.repair!.tests.filter((test) => test.expected === expected);
      expect(shown.filter((test) => test.passed).map((test) => test.name)).toEqual(status[expected]!.success);
      expect(shown.filter((test) => !test.passed).map((test) => test.name)).toEqual(status[expected]!.failure);
    }
    expect(view.repair!.tests.length).toBeGreaterThan(0);
    // The pair view's counts are the breakdown's: seed 2 solves task 2 where seed 1 did not.
    expect(
      site.summary.pairs.find((pair) => pair.a === "seed-1/plain/single" && pair.b === "seed-2/plain/single"),
    ).toMatchObject({
      n: 4,
      aOnly: 0,
      bOnly: 1,
    });
    // The results a user finds under results/, and the SWE-bench predictions of one cell.
    const written = await writeRepairReport(run.out);
    expect(written.written.map((path) => path.slice(run.out.length + 1))).toEqual([
      "results/repair-breakdown.json",
      "results/repair-breakdown.csv",
      "results/repair-outcomes.svg",
      "results/repair-outcomes.json",
    ]);
    expect(written.cells[0]).toMatchObject({ cell: "seed-1/plain/single", keys: 4, done: 4, resolved: 2, rate: 0.5 });
    // The budget's own count from the ledger: two agents' calls 3, 2, 6 and 2 (the localizer's turn in each).
    expect(written.cells.map((cell) => cell.medianCalls)).toEqual([1.5, 2.5, 1.5, 2.5]);
    const predictions = await repairPredictions(run.out, { cell: "seed-2/plain/single" });
    expect(predictions.map((prediction) => prediction.instance_id).sort()).toEqual([id(1), id(2), id(3), id(4)]);
    expect(predictions[0]!.model_name_or_path).toBe("scripted__seed-2__plain__single");
    expect(predictions.find((prediction) => prediction.instance_id === id(3))!.model_patch).toBe("");
  });

  it("a command that hangs past the wall budget: the supervisor ends the attempt (time_limit), the diff at that moment is graded", async () => {
    const hangs = spec("hangs", { instances: ["acme__calc-7"], repair: { wallSeconds: 8 } });
    expect(await startRepairRun(hangs)).toMatchObject({ keys: 1, done: 1 });
    const [record] = finals((await readRunFolder(hangs.out)).records);
    expect(record).toMatchObject({ exit: "time_limit" });
    expect(record!.repair).toMatchObject({
      resolved: true,
      evaluation: { status: "resolved" },
      patch: { files: ["calc/ops.py"] },
    });
    // How long after the 8 s budget the fixer ended (reported, not asserted: load stretches it).
    console.log(
      `hangs: the fixer ended ${((record!.repair!.ms.fixer - 8000) / 1000).toFixed(1)} s after its 8 s wall budget`,
    );
    expect(await labelled(repairRunTag(hangs.out))).toBe(0);
  });

  it("one slot, two tasks: the second attempt takes the slot while the first is still being evaluated (the slot is freed when the fixer ends)", async () => {
    const run = spec("slot-freed", {
      instances: ["acme__calc-1", "acme__calc-2"],
      endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 1 }],
      // Its own evaluation cache: both patches are really run, none found in the cache.
      repair: { evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations-slot"), concurrency: 1 } },
    });
    const summary = await startRepairRun(run);
    expect(summary).toMatchObject({ keys: 2, done: 2, complete: true });
    const [first, second] = finals((await readRunFolder(run.out)).records).sort((a, b) =>
      a.startedAt.localeCompare(b.startedAt),
    );
    expect(first?.repair?.evaluation.cached).toBe(false);
    // With one slot held through the evaluation, the second could only start once the first had
    // ended; it starts (takes the slot) before that, while the first's patch is in its container.
    expect(Date.parse(second!.startedAt)).toBeLessThan(Date.parse(first!.endedAt));
    for (const record of [first, second]) expect(record?.repair?.ms.evaluationQueue).toBeGreaterThanOrEqual(0);
  });

  it("the oracle arm: the gold patch's spans handed to the fixer after the issue, recorded; the fixer acts on them", async () => {
    const oracle = spec("oracle", { instances: ["acme__calc-1"], repair: { arms: ["oracle"] } });
    expect(await startRepairRun(oracle)).toMatchObject({ keys: 1, done: 1 });
    const [record] = finals((await readRunFolder(oracle.out)).records);
    expect(record).toMatchObject({ arm: "oracle", exit: "submitted" });
    // One counted call (the edit): the hand-off spared the read the single arm makes.
    expect(record!.repair).toMatchObject({
      resolved: true,
      calls: 1,
      handOff: { kind: "locations", source: "gold", locations: 1 },
    });
    const first = server.requests.find((request) =>
      request.body?.messages.some(
        (message) => typeof message.content === "string" && message.content.includes("(report 1)\n\n## Localization"),
      ),
    );
    expect(first, "a request whose issue is followed by the hand-off").toBeDefined();
  });

  it("bad input per task, the run goes on: a binary patch and writes outside the repository are graded; a missing image and a container that exits at once are infrastructure errors", async () => {
    const patches = spec("patches", { instances: ["acme__calc-5", "acme__calc-6"] });
    expect(await startRepairRun(patches)).toMatchObject({ keys: 2, done: 2 });
    const records = finals((await readRunFolder(patches.out)).records);
    const binary = records.find((record) => record.instanceId === "acme__calc-5")!;
    // The binary file travels in the patch (git's binary format) and applies in the fresh container.
    expect(readFileSync(join(patches.out, binary.repair!.patch.path), "utf8")).toContain("GIT binary patch");
    expect(binary.repair).toMatchObject({ resolved: true, patch: { files: ["calc/ops.py", "data.bin"] } });
    // What the fixer wrote outside /testbed is not part of the patch.
    const outside = records.find((record) => record.instanceId === "acme__calc-6")!;
    expect(outside.repair).toMatchObject({ resolved: true, patch: { files: ["calc/ops.py"] } });

    // Prebuilt images, never pulled: calc-1's is missing; calc-2's exits at once (its entry point is false).
    const outcome = JSON.parse(readFileSync(join(patches.out, binary.repair!.evaluation.outcome), "utf8"));
    const context = join(work, "exits-at-once");
    mkdirSync(context, { recursive: true });
    writeFileSync(join(context, "Dockerfile"), `FROM ${outcome.image.id}\nENTRYPOINT ["/bin/false"]\n`);
    const exits = prebuiltImageName("acme__calc-2");
    await buildImage(docker, { name: exits, context, entries: ["Dockerfile"], labels: {} });
    try {
      const prebuilt = spec("prebuilt", {
        instances: ["acme__calc-1", "acme__calc-2"],
        repair: { images: { source: "prebuilt", pull: false } },
      });
      const summary = await startRepairRun(prebuilt);
      expect(summary).toMatchObject({ keys: 2, done: 0, complete: false });
      const failed = (await readRunFolder(prebuilt.out)).records;
      expect(failed.map((record) => record.outcome)).toEqual(["infra_error", "infra_error"]);
      const error = (id: string) => failed.find((record) => record.instanceId === id)!.error!;
      expect(error("acme__calc-1")).toMatch(
        /^image-missing: image swebench\/sweb\.eval\.x86_64\.acme_1776_calc-1:latest is not present/,
      );
      // Its entry point exits before the sandbox's first exec: the start fails, named with the image.
      expect(error("acme__calc-2")).toMatch(
        /^sandbox from swebench\/sweb\.eval\.x86_64\.acme_1776_calc-2:latest: the container exited \(code 1\) before its first command/,
      );
      console.log(`exits at once: ${error("acme__calc-2")}`);
      expect(await labelled(repairRunTag(prebuilt.out))).toBe(0);
    } finally {
      await docker
        .getImage(exits)
        .remove({ force: true })
        .catch(() => undefined);
    }
  });

  it("the CLI: kill -9 while a sandbox runs, resume: its container removed, the attempt recorded as interrupted, every key evaluated once; score, breakdown, export, status", async () => {
    // The first answer of task 1 comes after 3 s, so the kill lands while its sandbox is up.
    const slow = await startScriptedModelServer({
      script: (request) => {
        const turn = policy(request);
        const first = request.messages.filter((message) => message.role === "assistant").length === 0;
        const text = request.messages
          .map((message) => (typeof message.content === "string" ? message.content : ""))
          .join("\n");
        return first && calcReportNumber(text) === 1 ? { fault: "delay", ms: 3000, then: turn as never } : turn;
      },
    });
    try {
      const dir = join(work, "killed");
      const specFile = join(work, "killed.json");
      writeFileSync(
        specFile,
        JSON.stringify({
          kind: "repair",
          benchmark: tasks.benchmark,
          instances: ["acme__calc-1", "acme__calc-2", "acme__calc-3"],
          endpoints: [{ baseURL: slow.url, model: "scripted" }],
          repos: fixture.mirrors,
          out: dir,
          cacheDir: join(work, "workspaces"),
          repair: { callBudget: 6, evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations") } },
        }),
      );
      const tag = repairRunTag(dir);
      const child = spawn(process.execPath, [loclabBin, "run", specFile], {
        stdio: "ignore",
        env: { ...process.env, LOCLAB_QUIET: "1" },
      });
      const exited = new Promise<string | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      // Killed once the sandbox is up and the trajectory begun (the model's first answer is 3 s away).
      const trajectory = runLayout.trajectory(dir, "seed-none/plain/single", "acme__calc-1", 1);
      for (let seen = 0; seen === 0 || !existsSync(trajectory); ) {
        seen = (await docker.listContainers({ all: true, filters: { label: [`loclab.repair.run=${tag}`] } })).length;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      // kill -9 leaves the sandbox behind; the next session removes it by the run's label.
      expect(await labelled(tag)).toBe(1);
      const resumed = await loclab("run", "--resume", dir);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(await labelled(tag)).toBe(0);
      const { records } = await readRunFolder(dir);
      const keys = new Set(records.map((record) => record.key));
      expect(keys.size).toBe(3);
      for (const key of keys)
        expect(records.filter((record) => record.key === key && record.outcome === "evaluated")).toHaveLength(1);
      expect(
        records.filter((record) => record.outcome === "failed" && /interrupted/.test(record.error ?? "")),
      ).toHaveLength(1);

      const score = await loclab("run", "score", dir, "--json");
      expect(score.exitCode, score.stderr).toBe(0);
      expect(JSON.parse(score.stdout).cells).toEqual([
        expect.objectContaining({ cell: "seed-none/plain/single", keys: 3, done: 3, resolved: 1 }),
      ]);
      expect(existsSync(join(dir, "results", "repair-breakdown.csv"))).toBe(true);
      const breakdown = await loclab("breakdown", dir, "--json");
      expect(breakdown.exitCode, breakdown.stderr).toBe(0);
      expect(JSON.parse(breakdown.stdout).breakdown.rows[0]).toMatchObject({
        tasks: 3,
        solved: 1,
        wrongPatch: 1,
        outOfBudget: 1,
      });
      const badBase = await loclab("breakdown", dir, "--base", "seed-9/plain/single");
      expect(badBase.exitCode).toBe(1);
      expect(badBase.stderr).toContain(
        'the base "seed-9/plain/single" is not one of the runs (seed-none/plain/single)',
      );
      const exported = await loclab("run", "export", dir);
      expect(exported.exitCode, exported.stderr).toBe(0);
      expect(
        exported.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line).instance_id)
          .sort(),
      ).toEqual(["acme__calc-1", "acme__calc-2", "acme__calc-3"]);
      const status = await loclab("status", dir);
      expect(status.exitCode, status.stderr).toBe(0);
    } finally {
      await slow.close();
      await removeLeftovers(docker, repairRunTag(join(work, "killed")));
    }
  });
});
