import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatCompletionRequest,
  type ScriptTurn,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "@loclab/agent";
import {
  buildCalcFixture,
  type CalcFixture,
  type CalcRepairTasks,
  calcReportNumber,
  writeCalcRepairTasks,
} from "@loclab/fixtures";
import { readStageResult, startRepairRun, writeTransferReport } from "@loclab/repair";
import { parseRunSpec, type RunSpecInput } from "@loclab/runner";
import { readRunFolder, type RunRecord } from "@loclab/schemas";
import { connectDocker } from "@loclab/docker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, FIX, GOOD_LOCALIZATION, README, SUBMIT } from "./calc-fixer-calls.js";
import { loclab, loclabBin } from "./helpers.js";

// SHERLOC's transfer end to end on CI's Docker engine: a repair run whose arms are handed the
// run's own localizer's prediction (one localizer stage per task × seed, shared by the arms),
// a judge on its own scripted server grading each finding, each fixer's final patch evaluated
// in a fresh container. The scripted servers answer by the "(report N)" at the end of each
// task's issue, so every number below follows from the script.
let work: string;
let fixture: CalcFixture;
let tasks: CalcRepairTasks;
let server: ScriptedModelServer;
let judge: ScriptedModelServer;

const GOOD = GOOD_LOCALIZATION;
/** Task 4's localizer is wrong, and its finding would mislead a fixer that trusts it. */
const MISLEADING = {
  locations: [{ path: "README.md", startLine: 1, endLine: 3, role: "edit" }],
  finding: {
    locationExplanation: "The README describes the mean.",
    rootCause: "The README's description is out of date.",
    solutionIdea: "Reword the README.",
    dependencies: "None.",
    testingImpact: "None.",
  },
};
/** Task 7's localizer leaves the root cause empty (the submission schema refuses it, every time). */
const HOLLOW = { ...GOOD, finding: { ...GOOD.finding, rootCause: "" } };

/** The judge's scores per task: composites 5, 4, 3.67, 1.67; task 5 answers prose, task 6 a score of 7. */
const JUDGE: Record<number, [number, number, number]> = { 1: [5, 5, 5], 2: [4, 4, 4], 3: [4, 4, 3], 4: [2, 1, 2] };
const grade = (score: number) => ({ feedback: `Scored ${score} against the levels.`, score });

function judgePolicy(request: ChatCompletionRequest): ScriptTurn {
  const task = calcReportNumber(String(request.messages[0]?.content ?? "")) ?? 0;
  if (task === 5) return { content: "The finding looks solid to me; I would give it a high mark." };
  if (task === 6)
    return { content: JSON.stringify({ rootCause: grade(7), location: grade(5), actionability: grade(5) }) };
  const [r, l, a] = JUDGE[task] ?? [1, 1, 1];
  return {
    content: `\`\`\`json\n${JSON.stringify({ rootCause: grade(r), location: grade(l), actionability: grade(a) })}\n\`\`\``,
  };
}

/**
 * The fixer: handed a hand-off, it edits where the hand-off points (the README when the
 * misleading finding is injected, the fix otherwise). Without one (the baseline, or a finding
 * the judge filtered out): task 1 reads and fixes; task 2 edits the README under seed 1 and
 * fixes under seed 2; task 3 edits the README; task 4 fixes; tasks 5-7 edit the README.
 */
function fixerPlan(text: string, task: number, seed: number | undefined): ScriptTurn[] {
  if (text.includes("## Localization"))
    return [{ toolCalls: [text.includes("- README.md:") ? README : FIX] }, { toolCalls: [SUBMIT] }];
  if (task === 1)
    return [{ toolCalls: [call("read_file", { path: "calc/ops.py" })] }, { toolCalls: [FIX] }, { toolCalls: [SUBMIT] }];
  if (task === 4 || (task === 2 && seed === 2)) return [{ toolCalls: [FIX] }, { toolCalls: [SUBMIT] }];
  return [{ toolCalls: [README] }, { toolCalls: [SUBMIT] }];
}

function policy(request: ChatCompletionRequest): ScriptTurn {
  const text = request.messages
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
  const task = calcReportNumber(text) ?? 0;
  const tools = (request.tools ?? []).map((tool) => tool.function.name);
  if (tools.includes("submit_localization"))
    return { toolCalls: [call("submit_localization", task === 4 ? MISLEADING : task === 7 ? HOLLOW : GOOD)] };
  const steps = fixerPlan(text, task, request.seed);
  const turn = request.messages.filter((message) => message.role === "assistant").length;
  return steps[Math.min(turn, steps.length - 1)]!;
}

beforeAll(async () => {
  await connectDocker({});
  work = mkdtempSync(join(tmpdir(), "loclab-transfer-run-"));
  fixture = await buildCalcFixture({ dir: join(work, "calc") });
  tasks = await writeCalcRepairTasks(fixture, { count: 7, dir: work });
  server = await startScriptedModelServer({ script: (request) => policy(request) });
  judge = await startScriptedModelServer({ script: (request) => judgePolicy(request) });
});
afterAll(async () => {
  await server?.close();
  await judge?.close();
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

function spec(name: string, fields: Partial<RunSpecInput> & { repair?: Record<string, unknown> }) {
  const { repair, ...rest } = fields;
  return parseRunSpec({
    kind: "repair",
    benchmark: tasks.benchmark,
    endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
    judge: { endpoints: [{ baseURL: judge.url, model: "judge", maxConcurrency: 2 }] },
    repos: fixture.mirrors,
    out: join(work, name),
    cacheDir: join(work, "workspaces"),
    retry: { requestRetries: 0, attemptsPerKey: 1 },
    localizer: { maxTurns: 3 },
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
const localizerRequests = (s: ScriptedModelServer) =>
  s.requests.filter((request) => request.body?.tools?.some((tool) => tool.function.name === "submit_localization"))
    .length;
const id = (n: number) => `acme__calc-${n}`;

describe("SHERLOC's transfer: hand-off arms of a repair run", () => {
  it("five arms × two seeds on four tasks: the injection follows the threshold rule, one localizer stage per task × seed, one judge call per finding; the transfer table and the sweep", async () => {
    const run = spec("arms", {
      instances: [id(1), id(2), id(3), id(4)],
      seeds: [1, 2],
      repair: { arms: ["baseline", "locations", "findings", "judged", "oracle"] },
    });
    const summary = await startRepairRun(run);
    expect(summary).toMatchObject({ keys: 40, done: 40, complete: true });
    const records = finals((await readRunFolder(run.out)).records);
    expect(records).toHaveLength(40);
    const of = (arm: string, seed: number, task: number) =>
      records.find((r) => r.arm === arm && r.seed === seed && r.instanceId === id(task))!;

    // One localizer stage per task × seed (8 episodes of one turn), shared by the three localizer arms.
    expect(localizerRequests(server)).toBe(8);
    const localizerArms = records.filter((r) => ["locations", "findings", "judged"].includes(r.arm!));
    const stages = new Map<string, RunRecord[]>();
    for (const record of localizerArms) {
      const key = record.repair!.handOff!.localization!.key;
      stages.set(key, [...(stages.get(key) ?? []), record]);
    }
    expect(stages.size).toBe(8);
    for (const [key, sharing] of stages) {
      expect(sharing).toHaveLength(3);
      // Its tokens counted once, in the one attempt that ran it.
      expect(sharing.filter((r) => r.repair!.handOff!.localization!.ran)).toHaveLength(1);
      const stored = await readStageResult(join(run.out, sharing[0]!.repair!.handOff!.localization!.path));
      expect(stored).toMatchObject({ key, outcome: "finished", turns: 1 });
    }
    // One judge call per distinct finding: the four tasks' findings, the same under both seeds.
    expect(judge.requests).toHaveLength(4);

    // The judged arm: injected exactly when the composite reaches 4.0; else the baseline prompt, and why.
    const composites = { 1: 5, 2: 4, 3: 11 / 3, 4: 5 / 3 } as Record<number, number>;
    for (const seed of [1, 2])
      for (const task of [1, 2, 3, 4]) {
        const handOff = of("judged", seed, task).repair!.handOff!;
        expect(handOff.judgement!.composite).toBeCloseTo(composites[task]!, 10);
        expect(handOff.injected).toBe(composites[task]! >= 4);
        if (!handOff.injected)
          expect(handOff.reason).toMatch(/^the judge's composite \d\.\d\d is below the threshold 4$/);
        // The findings arm is graded too (for the bins) and always injected.
        expect(of("findings", seed, task).repair!.handOff).toMatchObject({
          injected: true,
          judgement: { status: "judged" },
        });
      }
    // What was injected is what the fixer saw: the first fixer request of a filtered task has no hand-off.
    expect(of("judged", 1, 3).repair!.resolved).toBe(false);
    expect(of("judged", 1, 4).repair!.resolved).toBe(true);
    expect(of("findings", 1, 4).repair!.resolved).toBe(false);

    // The transfer table, checked by hand on the findings arm (pooled over seeds, 8 pairs):
    // findings resolves tasks 1-3 under both seeds (6/8); the baseline 1, 4 under seed 1 and
    // 1, 2, 4 under seed 2 (5/8). Baseline only: task 4 × 2; findings only: task 2 (seed 1),
    // task 3 × 2. Exact McNemar on b = 2, c = 3: p = 2 × (1 + 5 + 10) / 32 = 1.
    const { reports, written } = await writeTransferReport(run.out, { resamples: 2000 });
    expect(reports).toHaveLength(1);
    const report = reports[0]!;
    const row = (arm: string) => report.arms.find((r) => r.arm === arm)!;
    expect(row("findings")).toMatchObject({
      n: 8,
      armRate: 0.75,
      baselineRate: 0.625,
      differencePoints: 12.5,
      baselineOnly: 2,
      armOnly: 3,
      injected: 8,
    });
    expect(row("findings").p).toBeCloseTo(1, 12);
    expect(row("oracle")).toMatchObject({ n: 8, armRate: 1, baselineOnly: 0, armOnly: 3 });
    expect(row("judged")).toMatchObject({ n: 8, armRate: 0.75, baselineOnly: 0, armOnly: 1, injected: 4 });
    // The localizer arms' localization tokens include the stage's: they spend more before the first edit here.
    expect(row("findings").tokens.localization.relativeChangePercent).toBeGreaterThan(0);
    // Quality bins of the findings arm: the misleading finding (≤ 2) resolves below the baseline on the same tasks.
    const bins = Object.fromEntries(report.bins.map((bin) => [bin.bin, bin]));
    expect(bins["> 4"]).toMatchObject({ n: 2, armRate: 1, baselineRate: 1 });
    expect(bins["3–4"]).toMatchObject({ n: 4, armRate: 1, baselineRate: 0.25 });
    expect(bins["2–3"]).toMatchObject({ n: 0, armRate: null });
    expect(bins["≤ 2"]).toMatchObject({ n: 2, armRate: 0, baselineRate: 1 });
    // The sweep at 4.0 reproduces the judged arm as it ran, from the stored judgements: no new judge call.
    expect(report.judgedCheck).not.toBeNull();
    const { ran, sweep } = report.judgedCheck!;
    expect(sweep).toMatchObject({ threshold: 4, n: ran.n, judgedRate: ran.armRate, baselineRate: ran.baselineRate });
    expect([sweep.baselineOnly, sweep.judgedOnly, sweep.injectedShare]).toEqual([ran.baselineOnly, ran.armOnly, 0.5]);
    expect(report.sweep).toHaveLength(17);
    expect(report.sweep.find((point) => point.threshold === 1)).toMatchObject({ injectedShare: 1, judgedRate: 0.75 });
    // At 5.0 only task 1 passes, which the baseline resolves anyway: the judged arm is the baseline, 5/8.
    expect(report.sweep.find((point) => point.threshold === 5)).toMatchObject({
      injectedShare: 0.25,
      judgedRate: 0.625,
    });
    expect(judge.requests).toHaveLength(4);
    expect(written.map((path) => path.slice(run.out.length + 1))).toEqual([
      "results/transfer.json",
      "results/transfer-arms.csv",
      "results/transfer-bins.csv",
      "results/transfer-sweep.csv",
      "results/transfer-arms.svg",
      "results/transfer-arms.json",
      "results/transfer-bins.svg",
      "results/transfer-bins.json",
      "results/transfer-sweep.svg",
      "results/transfer-sweep.json",
    ]);
    console.log(
      `transfer: ${judge.requests.length} judge requests for 16 judged attempts and a 17-threshold sweep; ${localizerRequests(server)} localizer requests for 24 localizer-arm attempts\n${readFileSync(join(run.out, "results/transfer-sweep.csv"), "utf8")}`,
    );
    // The same from the CLI, which reads the folder alone.
    const cli = await loclab("run", "transfer", run.out, "--resamples", "500");
    expect(cli.exitCode, cli.stderr).toBe(0);
    expect(cli.stdout).toContain("control plain: each arm against the baseline (single)");
    expect(cli.stdout).toContain("|findings|pooled|8|75.0 %|62.5 %|+12.5|");
    expect(cli.stdout).toContain("|pooled|≤ 2|2|0.0 %|100.0 %|");
    expect(cli.stdout).toContain("|pooled|4.00|50.0 %|75.0 %|62.5 %|+12.5|1.0000|");
    expect(cli.stdout).toContain("the judged arm as run at 4: 75.0 % (b 0, c 1); the sweep at 4: 75.0 % (b 0, c 1)");
    const bad = await loclab("run", "transfer", run.out, "--baseline", "none");
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toContain("no attempt of the baseline arm none under plain (arms: ");
    expect(judge.requests).toHaveLength(4);
  });

  it("bad judge input and a bad finding fall back to the baseline per task, saying why; the run goes on", async () => {
    const before = judge.requests.length;
    const run = spec("bad", { instances: [id(5), id(6), id(7)], seeds: [1], repair: { arms: ["judged"] } });
    expect(await startRepairRun(run)).toMatchObject({ keys: 3, done: 3, complete: true });
    const records = finals((await readRunFolder(run.out)).records);
    const handOff = (task: number) => records.find((r) => r.instanceId === id(task))!.repair!.handOff!;
    // Prose instead of JSON: one repair request, prose again, invalid_answer; the raw answers stored.
    expect(handOff(5)).toMatchObject({ injected: false, judgement: { status: "invalid_answer", passes: false } });
    expect(handOff(5).reason).toMatch(/^the judge gave no verdict \(invalid_answer\): the answer is not valid JSON/);
    const stored = JSON.parse(readFileSync(join(run.out, handOff(5).judgement!.path!), "utf8"));
    expect(stored.answers).toEqual([
      "The finding looks solid to me; I would give it a high mark.",
      "The finding looks solid to me; I would give it a high mark.",
    ]);
    // A score of 7: refused by the rubric's range, twice.
    expect(handOff(6).reason).toMatch(/^the judge gave no verdict \(invalid_answer\): rootCause\.score: Too big/);
    // An empty root cause: the localizer's submission is refused each time; no prediction, no judge call.
    expect(handOff(7)).toMatchObject({ injected: false, localization: { ran: true } });
    expect(handOff(7).reason).toMatch(/^the localizer stage ended \w+ without a prediction$/);
    expect(handOff(7).judgement).toBeUndefined();
    expect(judge.requests.length - before).toBe(4);
    // Every task still ran the fixer on the baseline prompt and was evaluated.
    expect(records.map((r) => r.repair!.evaluation.status).sort()).toEqual(["unresolved", "unresolved", "unresolved"]);

    // A judge endpoint that is down: model_error, the baseline prompt, the reason; not stored, so a later session asks again.
    const down = spec("judge-down", {
      instances: [id(1)],
      seeds: [1],
      repair: { arms: ["judged"] },
      judge: { endpoints: [{ baseURL: "http://127.0.0.1:9/v1", model: "judge" }] },
      retry: { requestRetries: 0, attemptsPerKey: 1 },
    });
    expect(await startRepairRun(down)).toMatchObject({ keys: 1, done: 1 });
    const [record] = finals((await readRunFolder(down.out)).records);
    expect(record!.repair).toMatchObject({
      resolved: true,
      handOff: { injected: false, judgement: { status: "model_error", path: null, cached: false } },
    });
    expect(record!.repair!.handOff!.reason).toMatch(/^the judge gave no verdict \(model_error\): /);
  });

  it("under a control: the localizer stage runs per control, the fixer on the real repository; the analysis pairs within each control", async () => {
    const run = spec("controls", {
      instances: [id(1)],
      seeds: [1],
      controls: [{ kind: "plain" }, { kind: "masked" }],
      repair: { arms: ["baseline", "findings"] },
    });
    expect(await startRepairRun(run)).toMatchObject({ keys: 4, done: 4, complete: true });
    const records = finals((await readRunFolder(run.out)).records);
    const findings = records.filter((r) => r.arm === "findings");
    expect(findings.map((r) => r.control.kind).sort()).toEqual(["masked", "plain"]);
    const keys = new Set(findings.map((r) => r.repair!.handOff!.localization!.key));
    expect(keys.size).toBe(2);
    for (const record of findings) {
      expect(record.repair).toMatchObject({ resolved: true, handOff: { injected: true, localization: { ran: true } } });
      const stored = await readStageResult(join(run.out, record.repair!.handOff!.localization!.path));
      expect(stored.control).toEqual(record.control);
      expect(stored.prediction?.files).toEqual(["calc/ops.py"]);
    }
    const { reports } = await writeTransferReport(run.out, { resamples: 200 });
    expect(reports.map((report) => [report.control, report.arms[0]!.n])).toEqual([
      ["plain", 1],
      ["masked:modules", 1],
    ]);
  });

  it("under the shuffled control: the localizer works in the renamed tree, its prediction is mapped back before the hand-off", async () => {
    // The localizer searches for the definition and submits the path it finds (a renamed one);
    // the fixer is the main script's.
    let named: string | undefined;
    const searching = await startScriptedModelServer({
      script: (request) => {
        if (!(request.tools ?? []).some((tool) => tool.function.name === "submit_localization")) return policy(request);
        const found = request.messages
          .filter((message) => message.role === "tool")
          .map((message) => /^([^\s:][^:\n]*\.py):(\d+):.*def average/m.exec(String(message.content ?? "")))
          .find((match) => match !== null);
        if (!found) return { toolCalls: [call("search_code", { query: "def average(" })] };
        const line = Number(found[2]);
        named = found[1];
        return {
          toolCalls: [
            call("submit_localization", {
              ...GOOD,
              locations: [{ path: found[1], startLine: line, endLine: line + 4, role: "edit", symbol: "average" }],
            }),
          ],
        };
      },
    });
    try {
      const run = spec("shuffled", {
        instances: [id(1)],
        seeds: [1],
        controls: [{ kind: "shuffled", seed: 7 }],
        endpoints: [{ baseURL: searching.url, model: "scripted" }],
        repair: { arms: ["baseline", "findings"] },
      });
      expect(await startRepairRun(run)).toMatchObject({ keys: 2, done: 2, complete: true });
      const records = finals((await readRunFolder(run.out)).records);
      const findings = records.find((record) => record.arm === "findings")!;
      const stored = await readStageResult(join(run.out, findings.repair!.handOff!.localization!.path));
      expect(stored.control).toMatchObject({ kind: "shuffled", seed: 7 });
      // What the localizer saw and named is the renamed file; what was handed on is the real one.
      expect(named).toBeDefined();
      expect(named).toMatch(/^[\w/]+\.py$/);
      expect(named).not.toBe("calc/ops.py");
      expect(stored.prediction?.files).toEqual(["calc/ops.py"]);
      expect(findings.repair).toMatchObject({ resolved: true, handOff: { injected: true } });
      console.log(`shuffled: the localizer named ${named}; handed on as ${stored.prediction?.locations[0]?.path}`);
    } finally {
      await searching.close();
    }
  });

  it("the CLI: kill -9 while the localizer stage runs, resume: the stage runs again and is stored once, every key evaluated once, its tokens counted once", async () => {
    // The localizer's answer on task 1 comes after 3 s, so the kill lands while the stage runs.
    const slow = await startScriptedModelServer({
      script: (request) => {
        const turn = policy(request);
        const localizing = (request.tools ?? []).some((tool) => tool.function.name === "submit_localization");
        const text = request.messages
          .map((message) => (typeof message.content === "string" ? message.content : ""))
          .join("\n");
        return localizing && calcReportNumber(text) === 1 ? { fault: "delay", ms: 3000, then: turn as never } : turn;
      },
    });
    const localizing = (task: number) =>
      slow.requests.filter(
        (request) =>
          request.body?.tools?.some((tool) => tool.function.name === "submit_localization") &&
          request.body.messages.some(
            (message) => typeof message.content === "string" && message.content.includes(`(report ${task})`),
          ),
      ).length;
    try {
      const dir = join(work, "killed");
      const specFile = join(work, "killed.json");
      const judgeBefore = judge.requests.length;
      writeFileSync(
        specFile,
        JSON.stringify({
          kind: "repair",
          benchmark: tasks.benchmark,
          instances: [id(1), id(2)],
          seeds: [1],
          endpoints: [{ baseURL: slow.url, model: "scripted" }],
          judge: { endpoints: [{ baseURL: judge.url, model: "judge" }] },
          localizer: { maxTurns: 3 },
          repos: fixture.mirrors,
          out: dir,
          cacheDir: join(work, "workspaces"),
          repair: {
            arms: ["findings", "judged"],
            callBudget: 6,
            evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations") },
          },
        }),
      );
      const child = spawn(process.execPath, [loclabBin, "run", specFile], {
        stdio: "ignore",
        env: { ...process.env, LOCLAB_QUIET: "1" },
      });
      const exited = new Promise<string | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      while (localizing(1) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      const resumed = await loclab("run", "--resume", dir);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const { records } = await readRunFolder(dir);
      const evaluated = finals(records);
      expect(new Set(records.map((record) => record.key)).size).toBe(4);
      expect(evaluated).toHaveLength(4);
      expect(new Set(evaluated.map((record) => record.key)).size).toBe(4);
      // The killed stage ran again in the resumed session; task 2's ran once.
      expect([localizing(1), localizing(2)]).toEqual([2, 1]);
      // Stored once per task, nothing half-written left beside.
      expect(readdirSync(join(dir, "localizations")).sort()).toHaveLength(4);
      expect(
        readdirSync(join(dir, "localizations")).filter((name) => !/^[0-9a-f]{64}\.(json|traj\.jsonl)$/.test(name)),
      ).toEqual([]);
      for (const task of [1, 2]) {
        const sharing = evaluated.filter((record) => record.instanceId === id(task));
        expect(new Set(sharing.map((record) => record.repair!.handOff!.localization!.key)).size).toBe(1);
        expect(sharing.filter((record) => record.repair!.handOff!.localization!.ran)).toHaveLength(1);
      }
      // One judge call per task, whichever arm asked first; the other arm read it.
      expect(judge.requests.length - judgeBefore).toBe(2);
    } finally {
      await slow.close();
    }
  });
});
