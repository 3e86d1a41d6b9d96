import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatCompletionRequest,
  type ScriptTurn,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "@loclab/agent";
import { connectDocker } from "@loclab/docker";
import {
  buildCalcFixture,
  type CalcFixture,
  type CalcRepairTasks,
  calcReportNumber,
  writeCalcRepairTasks,
} from "@loclab/fixtures";
import { repairBreakdown, repairExport, repairRunTag } from "@loclab/repair";
import { readRunFolder, type RunRecord } from "@loclab/schemas";
import type Docker from "dockerode";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, FIX, SUBMIT } from "./calc-fixer-calls.js";
import { loclabBin } from "./helpers.js";

// Hostile commands as attempts of one repair run (`loclab run` as a user starts it, under
// /usr/bin/time -v for the runner's peak memory), on CI's Docker engine, with the scripted fixer
// over real HTTP: each task of the calc fixture is one case; every case but the patch-limit ones
// then fixes the bug and submits, so "the run goes on" is each attempt resolving beside the
// others (two in flight at once). tests/sandbox-hostile.test.ts checks each case at the sandbox
// itself; this file checks that a run survives them, and what its ledger says.
let docker: Docker;
let work: string;
let fixture: CalcFixture;
let tasks: CalcRepairTasks;
let server: ScriptedModelServer;

const run = (command: string) => ({ toolCalls: [call("run_command", { command })] });
const write = (path: string, content: string) => ({ toolCalls: [call("write_file", { path, content })] });
const fixed = [{ toolCalls: [FIX] }, { toolCalls: [SUBMIT] }];

/** pytest prints this conftest's flood in its terminal summary (after the tests, never captured). */
const FLOOD_CONFTEST = `def pytest_terminal_summary(terminalreporter):
    line = "flood " * 170
    for _ in range(100_000):
        terminalreporter.write_line(line)
`;
/** Forks sleeping children until the process limit refuses one, ends them, then lets the tests run. */
const FORK_CONFTEST = `import os, signal, time
REFUSED = []
def pytest_configure(config):
    children = []
    while len(children) < 100_000:
        try:
            pid = os.fork()
        except OSError as error:
            REFUSED.append(f"fork refused after {len(children)} children: {error.strerror}")
            break
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
def pytest_terminal_summary(terminalreporter):
    for line in REFUSED:
        terminalreporter.write_line(line)
`;

/** The case of each task (its problem statement ends in "(report N)"). */
const CASES: Record<number, { name: string; turns: ScriptTurn[] }> = {
  1: { name: "control", turns: [run("ls"), ...fixed] },
  // 400 MB, not the 1.5 GB of tests/sandbox-hostile.test.ts: under CI's load a 1.1 GB flood drained at
  // about 55 MB/s and met the run's 20 s command limit (8 MB short). The cap is 64 KiB either way.
  2: { name: "a 400 MB output flood", turns: [run("yes loclab-flood | head -c 400000000"), ...fixed] },
  3: { name: "prints for its whole time limit", turns: [run("while :; do echo tick; sleep 0.05; done"), ...fixed] },
  4: { name: "a fork bomb", turns: [run("bomb() { bomb | bomb & }; bomb; sleep 5"), ...fixed] },
  5: { name: "an allocation past the memory limit", turns: [run("python3 -c \"b = b'x' * (2 << 30)\""), ...fixed] },
  6: {
    name: "a detached CPU burner",
    turns: [run("setsid sh -c 'while :; do :; done' > /dev/null 2>&1 & echo started"), ...fixed],
  },
  7: {
    name: "read_file on a 2 GB file",
    turns: [
      // Four commands of 500 MB each: one of 2 GB could pass the run's 20 s command limit on a loaded machine.
      ...[1, 2, 3, 4].map(() => run("yes 'a line of 19 chars.' | head -c 500000000 >> big.txt")),
      { toolCalls: [call("read_file", { path: "big.txt" })] },
      run("rm big.txt"),
      ...fixed,
    ],
  },
  8: {
    name: "a 300 MB file left for the final patch",
    turns: [{ toolCalls: [FIX] }, run("head -c 300000000 /dev/urandom > model.bin"), { toolCalls: [SUBMIT] }],
  },
  9: { name: "an evaluation that floods its log", turns: [write("conftest.py", FLOOD_CONFTEST), ...fixed] },
  10: { name: "an evaluation that forks", turns: [write("conftest.py", FORK_CONFTEST), ...fixed] },
  // Writes until stopped: past the run's 3,072 MiB disk limit the attempt ends (its next turns never asked for).
  11: { name: "a disk filler", turns: [run("while :; do head -c 16777216 /dev/zero >> fill.bin; done"), ...fixed] },
};

/** mini-swe-agent's actions, in its own markdown code blocks. */
const bash = (command: string) => ({
  content: `THOUGHT: the next step.\n\n\`\`\`mswea_bash_command\n${command}\n\`\`\``,
});
/** mini-swe-agent's cases: its first action, then the fix and its own submission protocol. */
const MINI_CASES: Record<number, ScriptTurn[]> = {
  1: [bash("ls")],
  2: [bash("yes loclab-flood | head -c 400000000")],
  11: [bash("while :; do head -c 16777216 /dev/zero >> fill.bin; done")],
};
const miniTurns = (task: number) => [
  ...MINI_CASES[task]!,
  bash("sed -i 's/(len(values) - 1)/len(values)/' calc/ops.py"),
  bash("git diff -- calc/ops.py > patch.txt"),
  bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"),
];

/** The fixer's tools are offered to loclab's fixer; mini-swe-agent is offered none. */
function policy(request: ChatCompletionRequest): ScriptTurn {
  const text = request.messages
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
  const task = calcReportNumber(text) ?? 1;
  const turns = (request.tools ?? []).length > 0 ? CASES[task]!.turns : miniTurns(task);
  const turn = request.messages.filter((message) => message.role === "assistant").length;
  return turns[Math.min(turn, turns.length - 1)]!;
}

beforeAll(async () => {
  ({ docker } = await connectDocker({}));
  work = mkdtempSync(join(tmpdir(), "loclab-hostile-run-"));
  fixture = await buildCalcFixture({ dir: join(work, "calc") });
  tasks = await writeCalcRepairTasks(fixture, { count: Object.keys(CASES).length, dir: work });
  server = await startScriptedModelServer({ script: (request) => policy(request) });
});
afterAll(async () => {
  await server?.close();
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

/** `loclab run SPEC` under /usr/bin/time -v: its exit and the runner's peak resident memory in MiB. */
async function timedRun(name: string, repair: Record<string, unknown>, instances?: string[]) {
  const out = join(work, name);
  const specPath = join(work, `${name}.json`);
  writeFileSync(
    specPath,
    JSON.stringify({
      kind: "repair",
      benchmark: tasks.benchmark,
      ...(instances ? { instances } : {}),
      endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
      repos: fixture.mirrors,
      out,
      cacheDir: join(work, "workspaces"),
      retry: { requestRetries: 0, attemptsPerKey: 1 },
      repair: {
        callBudget: 8,
        wallSeconds: 300,
        commandTimeoutSeconds: 20,
        memoryMiB: 1024,
        evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations"), limits: { processes: 256, logMiB: 16 } },
        ...repair,
      },
    }),
  );
  const timing = join(work, `${name}.time`);
  // Asynchronously: the scripted model server answers from this process.
  const child = await execa("/usr/bin/time", ["-v", "-o", timing, process.execPath, loclabBin, "run", specPath], {
    reject: false,
    env: { LOCLAB_QUIET: "1" },
    stdout: "ignore",
  });
  const exit = child.exitCode ?? -1;
  const stderr = String(child.stderr).slice(-3000);
  const peakKiB = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(readFileSync(timing, "utf8"))?.[1]);
  return { out, exit, stderr, peakMiB: peakKiB / 1024 };
}

const finals = (records: readonly RunRecord[]) =>
  new Map(records.filter((record) => record.outcome === "evaluated").map((record) => [record.instanceId, record]));
const id = (task: number) => `acme__calc-${task}`;

/** The tool results of an attempt's trajectory, in order (the observations the model saw). */
function observations(out: string, record: RunRecord): string[] {
  return readFileSync(join(out, record.trajectory!), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => JSON.parse(line) as { toolCalls: { observation?: string }[] })
    .flatMap((step) => step.toolCalls.map((toolCall) => toolCall.observation ?? ""));
}

describe("a repair run holds against hostile commands", () => {
  it("eleven cases, two in flight: each named in its observation and its ledger record, every other attempt resolved, the runner's memory flat", async () => {
    // 3 GiB written over the image at most: case 7's 2 GB file fits, case 11's filler does not.
    const { out, exit, stderr, peakMiB } = await timedRun("hostile", { sandbox: { diskMiB: 3072 } });
    expect(exit, stderr).toBe(0);
    const folder = await readRunFolder(out);
    const records = finals(folder.records);
    expect([...records.keys()].sort()).toEqual(
      Object.keys(CASES)
        .map((task) => id(Number(task)))
        .sort(),
    );
    const seen = (task: number) => observations(out, records.get(id(task))!);
    const verdict = (task: number) => records.get(id(task))!.repair!;
    for (const task of [1, 2, 3, 4, 5, 6, 7, 10])
      expect(verdict(task), CASES[task]!.name).toMatchObject({ resolved: true, evaluation: { status: "resolved" } });

    expect(seen(2)[0]).toMatch(/^exit code 0\nstdout:\nloclab-flood\n[\s\S]*more bytes not kept\]/);
    expect(verdict(2).limits).toMatchObject({ output: 1 });
    expect(seen(3)[0]).toMatch(/^timed out after 20 s: the command and its children were killed/);
    expect(seen(4)[0]).toMatch(/fork failed: process limit 1,024 \([\d,]+ forks? refused\)/);
    expect(verdict(4).limits).toMatchObject({ processes: 1 });
    expect(seen(5)[0]).toMatch(
      /^exit code 137\nkilled: memory limit 1,024 MiB \(the kernel ended 1 process of this command\)/,
    );
    expect(verdict(5).limits).toMatchObject({ memory: 1 });
    expect(seen(6)[0]).toMatch(
      /ended after the command: \d+ process(es)? it left running \(`sh -c while :; do :; done`/,
    );
    expect(verdict(6).limits).toMatchObject({ leftover: 1 });
    // read_file's window of the 2 GB file, with its line count (2,000,000,000 / 20 bytes a line).
    expect(seen(7).slice(0, 4)).toEqual(Array(4).fill("exit code 0\nstdout:\n(empty)\nstderr:\n(empty)"));
    expect(seen(7)[4]).toMatch(/^big\.txt: lines 1-150 of 100000000 /);
    // The 300 MB file: never diffed nor stored, never evaluated; export leaves it out and says so.
    expect(verdict(8)).toMatchObject({
      resolved: false,
      evaluation: { status: "patch-too-large", patchApplied: null },
      patch: { bytes: 0, overLimit: { oversized: [{ path: "model.bin", bytes: 300_000_000 }] } },
    });
    // The evaluation that floods its log (≈ 102 MB past a 16 MiB cap): its head kept, not graded.
    expect(verdict(9)).toMatchObject({ resolved: false, evaluation: { status: "log-over-limit", patchApplied: true } });
    const flooded = JSON.parse(readFileSync(join(out, verdict(9).evaluation.outcome), "utf8"));
    expect(flooded.log_over_limit).toMatch(
      /^the eval script printed [\d,]+ bytes, over the test log's limit of 16,777,216/,
    );
    // The evaluation that forks: the container's process limit refused a fork, the tests then ran.
    const forked = JSON.parse(readFileSync(join(out, verdict(10).evaluation.outcome), "utf8"));
    expect(forked).toMatchObject({ status: "resolved" });
    // The disk filler: killed within a poll's writing of the limit, the attempt's named exit, the
    // zeros it left never diffed (a binary file over the patch limit).
    const filled =
      /killed: disk limit 3,072 MiB \(the container's writable layer holds ([\d,]+) MiB\); the attempt ends here/.exec(
        seen(11)[0]!,
      );
    expect(filled, seen(11)[0]).not.toBeNull();
    expect(Number(filled![1]!.replaceAll(",", ""))).toBeLessThan(3072 + 2048);
    expect(seen(11)).toHaveLength(1);
    expect(records.get(id(11))).toMatchObject({ exit: "disk_limit" });
    expect(verdict(11)).toMatchObject({
      resolved: false,
      limits: { disk: 1 },
      evaluation: { status: "patch-too-large" },
      patch: { overLimit: { oversized: [{ path: "fill.bin" }] } },
    });

    // The breakdown: the two limit verdicts are wrong patches of their own kind, the disk limit a
    // budget (its exit decides first); export names what it left out.
    const { breakdown, overLimit } = await repairBreakdown(out);
    const [row] = breakdown.rows;
    expect(row).toMatchObject({ tasks: 11, solved: 8, outOfBudget: 1, wrongPatch: 2, noPatch: 0 });
    expect(overLimit[row!.run]!.sort()).toEqual([id(11), id(8), id(9)]);
    const exported = await repairExport(out);
    expect(exported.predictions.map((prediction) => prediction.instance_id).sort()).not.toContain(id(8));
    expect(exported.leftOut).toHaveLength(2);
    expect(exported.leftOut).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instanceId: id(11), note: expect.stringContaining("fill.bin") }),
        expect.objectContaining({ instanceId: id(8), note: expect.stringContaining("model.bin") }),
      ]),
    );
    // Nothing of the run is left on the engine.
    const tag = repairRunTag(out);
    expect((await docker.listContainers({ all: true, filters: { label: [`loclab.repair.run=${tag}`] } })).length).toBe(
      0,
    );
    // The runner's peak memory: what it keeps of a 400 MB flood and a 2 GB file is their caps.
    console.log(`hostile run: runner peak RSS ${peakMiB.toFixed(0)} MiB`);
    expect(peakMiB).toBeLessThan(1024);
  });

  it("mini-swe-agent's driver: the same flood and disk filler in a run of their own, each named and counted in the ledger", async () => {
    const { out, exit, stderr, peakMiB } = await timedRun(
      "hostile-mini",
      {
        frameworks: ["mini-swe-agent"],
        miniSweAgent: { stepLimit: 6 },
        sandbox: { diskMiB: 1024 },
      },
      [id(1), id(2), id(11)],
    );
    expect(exit, stderr).toBe(0);
    const folder = await readRunFolder(out);
    const records = finals(folder.records);
    expect(records.size).toBe(3);
    // The filler: the driver stopped from outside once the writable layer passed 1,024 MiB.
    expect(records.get(id(11))).toMatchObject({ exit: "disk_limit" });
    expect(records.get(id(11))!.repair).toMatchObject({ resolved: false, limits: { disk: 1 } });
    for (const task of [1, 2]) expect(records.get(id(task))!.repair).toMatchObject({ resolved: true });
    expect(records.get(id(2))!.repair!.limits).toMatchObject({ output: 1 });
    expect(readFileSync(join(out, records.get(id(2))!.trajectory!), "utf8")).toMatch(/more bytes not kept\]/);
    console.log(`hostile mini-swe-agent run: runner peak RSS ${peakMiB.toFixed(0)} MiB`);
    expect(peakMiB).toBeLessThan(1024);
  });
});
