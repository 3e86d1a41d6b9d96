import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ChatCompletionRequest,
  type ScriptTurn,
  type ScriptedModelServer,
  startScriptedModelServer,
} from "@loclab/agent";
import { readTrajectory } from "@loclab/analysis";
import { connectDocker } from "@loclab/docker";
import {
  buildCalcFixture,
  type CalcFixture,
  type CalcRepairTasks,
  calcReportNumber,
  writeCalcRepairTasks,
} from "@loclab/fixtures";
import { repairBreakdown, startRepairRun, writeTransferReport } from "@loclab/repair";
import { parseRunSpec } from "@loclab/runner";
import { readRunFolder } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// mini-swe-agent (the pinned release, installed by `loclab setup mini-swe-agent`; `npm test`
// installs it) driven as a repair run's second framework on CI's Docker engine: its own agent
// loop, templates and litellm model class against the scripted server (its actions in its own
// markdown code blocks), executing in the sandbox loclab started from the task's image; its
// trajectory read with the mini-swe-agent importer; its patch evaluated by loclab's evaluation.
let work: string;
let fixture: CalcFixture;
let tasks: CalcRepairTasks;
let server: ScriptedModelServer;

const bash = (command: string) => ({
  content: `THOUGHT: the next step.\n\n\`\`\`mswea_bash_command\n${command}\n\`\`\``,
});
const FIX = bash("sed -i 's/(len(values) - 1)/len(values)/' calc/ops.py");
const README = bash("sed -i 's/A tiny calculator./A calculator./' README.md");
const SUBMIT = [
  bash("git diff -- calc/ops.py README.md > patch.txt"),
  bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt"),
];
const call = (name: string, args: unknown) => ({ name, arguments: JSON.stringify(args) });
const LOCATED = call("submit_localization", {
  locations: [{ path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit", symbol: "average" }],
  finding: {
    locationExplanation: "average is the mean the issue reports.",
    rootCause: "It divides by len(values) - 1.",
    solutionIdea: "Divide by len(values).",
    dependencies: "calc/cli.py prints it.",
    testingImpact: "tests/test_ops.py.",
  },
});

/**
 * The localizer stage answers with the location of `average`. mini-swe-agent: handed the finding,
 * it fixes calc/ops.py; without it, task 1 fixes too and task 2 edits the README. Then it writes
 * patch.txt and submits (mini-swe-agent's own protocol). Task 3 hangs (the last test).
 */
function policy(request: ChatCompletionRequest): ScriptTurn {
  if ((request.tools ?? []).some((tool) => tool.function.name === "submit_localization"))
    return { toolCalls: [LOCATED] };
  const text = request.messages
    .map((message) => (typeof message.content === "string" ? message.content : ""))
    .join("\n");
  const task = calcReportNumber(text) ?? 0;
  const handed = text.includes("## Localization finding");
  // Task 3 fixes, then runs a command that sleeps ten minutes.
  const steps = task === 3 ? [FIX, bash("sleep 600")] : [handed || task === 1 ? FIX : README, ...SUBMIT];
  const turn = request.messages.filter((message) => message.role === "assistant").length;
  return steps[Math.min(turn, steps.length - 1)]!;
}

beforeAll(async () => {
  await connectDocker({});
  work = mkdtempSync(join(tmpdir(), "loclab-mini-run-"));
  fixture = await buildCalcFixture({ dir: join(work, "calc") });
  tasks = await writeCalcRepairTasks(fixture, { count: 3, dir: work });
  server = await startScriptedModelServer({ script: (request) => policy(request) });
});
afterAll(async () => {
  await server?.close();
  if (work && !process.env.LOCLAB_KEEP_TEST_DIR) rmSync(work, { recursive: true, force: true });
});

function spec(name: string, fields: { instances: string[]; repair: Record<string, unknown> }) {
  return parseRunSpec({
    kind: "repair",
    benchmark: tasks.benchmark,
    instances: fields.instances,
    endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
    repos: fixture.mirrors,
    out: join(work, name),
    cacheDir: join(work, "workspaces"),
    retry: { requestRetries: 0, attemptsPerKey: 1 },
    localizer: { maxTurns: 3 },
    seeds: [1],
    repair: {
      frameworks: ["mini-swe-agent"],
      evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations") },
      ...fields.repair,
    },
  });
}

describe("mini-swe-agent as a repair run's framework", () => {
  it("two tasks, each with and without a hand-off: the hand-off in its first user message, its trajectory imported, its patch evaluated", async () => {
    const run = spec("mini", {
      instances: ["acme__calc-1", "acme__calc-2"],
      repair: { arms: ["baseline", "findings"], miniSweAgent: { stepLimit: 6 }, wallSeconds: 120 },
    });
    expect(await startRepairRun(run)).toMatchObject({ keys: 4, done: 4, complete: true });
    const folder = await readRunFolder(run.out);
    expect(folder.manifest.cells).toEqual([
      "seed-1/plain/single/mini-swe-agent",
      "seed-1/plain/findings/mini-swe-agent",
    ]);
    const records = folder.records.filter((record) => record.outcome === "evaluated");
    expect(records).toHaveLength(4);
    const of = (arm: string, task: number) =>
      records.find((r) => r.arm === arm && r.instanceId === `acme__calc-${task}`)!;
    for (const record of records) {
      expect(record).toMatchObject({ framework: "mini-swe-agent", exit: "submitted", turns: 3 });
      expect(record.trajectory).toMatch(/attempt-1\.traj\.json$/);
      // Its trajectory, read by the mini-swe-agent importer: three model calls, each a bash action.
      const trajectory = await readTrajectory(join(run.out, record.trajectory!), "mini-swe-agent");
      expect(trajectory.outcome.exitStatus).toBe("Submitted");
      expect(trajectory.steps.filter((step) => step.toolCalls.some((c) => c.name === "bash"))).toHaveLength(2);
      const raw = JSON.parse(readFileSync(join(run.out, record.trajectory!), "utf8"));
      expect(raw.info.mini_version).toBe("2.4.6");
      const firstUser = raw.messages.find((message: { role: string }) => message.role === "user").content as string;
      expect(firstUser).toContain(`(report ${record.instanceId.at(-1)})`);
      // The hand-off, rendered by the renderer loclab's fixer uses, right after the issue.
      const handed = record.arm === "findings";
      expect(firstUser.includes("## Localization finding\n\nA localization agent examined the repository")).toBe(
        handed,
      );
      if (handed) expect(firstUser).toContain("Root cause: It divides by len(values) - 1.");
      // The first edit is the first step's sed -i; as for loclab's fixer, the call that made it is
      // the last of the localization phase (SHERLOC's localization tokens), the two after it repair.
      expect(record.repair!.phases.beforeFirstEdit.apiCalls).toBe(1);
      expect(record.repair!.phases.afterFirstEdit.apiCalls).toBe(2);
      expect(record.repair!.agents.fixer.apiCalls).toBe(3);
    }
    expect(of("single", 1).repair).toMatchObject({ resolved: true, patch: { files: ["calc/ops.py"] } });
    expect(of("single", 2).repair).toMatchObject({ resolved: false, patch: { files: ["README.md"] } });
    expect(of("findings", 2).repair).toMatchObject({ resolved: true, handOff: { injected: true } });
    // The failure table and the transfer analysis read the folder as for loclab's fixer.
    const { breakdown, problems } = await repairBreakdown(run.out);
    expect(problems).toEqual([]);
    expect(breakdown.rows.map((row) => [row.run, row.solved])).toEqual([
      ["seed-1/plain/single/mini-swe-agent", 1],
      ["seed-1/plain/findings/mini-swe-agent", 2],
    ]);
    const { reports } = await writeTransferReport(run.out, { resamples: 200 });
    expect(reports[0]!.frameworks).toEqual(["mini-swe-agent"]);
    expect(reports[0]!.arms[0]).toMatchObject({
      arm: "findings",
      framework: "pooled",
      n: 2,
      armOnly: 1,
      baselineOnly: 0,
    });
  });

  it("a command that hangs past the wall budget: loclab's supervisor ends mini-swe-agent (time_limit), the diff at that moment is graded", async () => {
    const run = spec("hangs", { instances: ["acme__calc-3"], repair: { arms: ["baseline"], wallSeconds: 8 } });
    expect(await startRepairRun(run)).toMatchObject({ keys: 1, done: 1 });
    const [record] = (await readRunFolder(run.out)).records.filter((r) => r.outcome === "evaluated");
    expect(record).toMatchObject({ framework: "mini-swe-agent", exit: "time_limit" });
    expect(record!.repair).toMatchObject({ resolved: true, patch: { files: ["calc/ops.py"] } });
    console.log(
      `mini-swe-agent hangs: ended ${((record!.repair!.ms.fixer - 8000) / 1000).toFixed(1)} s after its 8 s wall budget`,
    );
  });
});
