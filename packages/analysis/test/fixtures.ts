import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { formatLoclabTrajectory } from "../src/formats/loclab-trajectory.js";
import type { Trajectory } from "../src/model/trajectory.js";

// Hand-made runs, one per format, written the way each agent writes its logs, with counts known
// for every breakdown column. Each test file builds its own copy in a fresh temp folder.

export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `loclab-analysis-${prefix}-`));
}

function write(path: string, content: string | object): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 1));
}

const PATCH = "diff --git a/django/x.py b/django/x.py\n--- a/django/x.py\n+++ b/django/x.py\n@@ -1 +1 @@\n-a\n+b\n";
const NO_FILE = (path: string) => `cat: ${path}: No such file or directory`;
const REPEATED = `Let me think.\n${"I will check the file again.\n".repeat(6)}Done.`;

// ---------------------------------------------------------------- mini-swe-agent 2.x

interface Mini2Step {
  output?: string;
  commands?: string[];
  observations?: string[];
  finish?: string;
  created?: number;
  done?: number;
  observedAt?: number;
  completionTokens?: number;
  /** A FormatError message from the harness instead of an output. */
  formatError?: string;
}

function mini2Document(spec: {
  instanceId: string;
  exitStatus: string;
  submission: string;
  apiCalls: number;
  cost: number;
  stepLimit?: number;
  costLimit?: number;
  steps: Mini2Step[];
}): object {
  const messages: object[] = [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: `<pr_description>fix ${spec.instanceId}</pr_description>` },
  ];
  spec.steps.forEach((step, k) => {
    if (step.formatError !== undefined) {
      messages.push({ role: "user", content: step.formatError, extra: { interrupt_type: "FormatError" } });
      return;
    }
    const commands = step.commands ?? [];
    const calls = commands.map((command, i) => ({
      index: i,
      id: `call_${k}_${i}`,
      type: "function",
      function: { name: "bash", arguments: JSON.stringify({ command }) },
    }));
    messages.push({
      role: "assistant",
      content: step.output ?? "THOUGHT: next.",
      tool_calls: calls,
      function_call: null,
      extra: {
        actions: commands.map((command, i) => ({ command, tool_call_id: `call_${k}_${i}` })),
        response: {
          id: `r${k}`,
          created: step.created,
          model: "fake",
          choices: [
            {
              finish_reason: step.finish ?? "tool_calls",
              index: 0,
              message: { content: step.output ?? "", role: "assistant" },
            },
          ],
          usage: {
            prompt_tokens: 100,
            completion_tokens: step.completionTokens ?? 10,
            total_tokens: 100 + (step.completionTokens ?? 10),
          },
        },
        cost: 0.01,
        timestamp: step.done,
      },
    });
    commands.forEach((_, i) => {
      const output = step.observations?.[i] ?? "ok";
      messages.push({
        role: "tool",
        content: `<returncode>0</returncode>\n<output>\n${output}\n</output>`,
        tool_call_id: `call_${k}_${i}`,
        extra: {
          raw_output: output,
          returncode: 0,
          timestamp: step.observedAt === undefined ? undefined : step.observedAt + i,
          exception_info: "",
        },
      });
    });
  });
  messages.push({
    role: "exit",
    content: spec.submission,
    extra: { exit_status: spec.exitStatus, submission: spec.submission },
  });
  return {
    info: {
      model_stats: { instance_cost: spec.cost, api_calls: spec.apiCalls },
      config: {
        agent: { step_limit: spec.stepLimit ?? 250, cost_limit: spec.costLimit ?? 3 },
        model: { model_name: "fake/model" },
      },
      mini_version: "2.2.7",
      exit_status: spec.exitStatus,
      submission: spec.submission,
    },
    messages,
    trajectory_format: "mini-swe-agent-1.1",
    instance_id: spec.instanceId,
  };
}

export const SUBMIT_2 = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt";

/**
 * mini-swe-agent 2.x run, labels in a SWE-bench run report. Known row (no task list):
 * tasks 6, solved 1 (a-1), out of budget 3 (a-2 steps, a-5 cost, a-6 context), wrong patch 1
 * (a-3), no patch 1 (a-4); counted calls [3, 3, 6, 1, 2, 1] → median 2.5; loops 2 (a-2 length,
 * a-3 repeated line), 35 s and 4,146 completion tokens; bad prefix 1 (a-3); no file 1 (a-3).
 * m2__a-7 does not parse.
 */
export function writeMini2Run(root: string): string {
  const dir = join(root, "mini2");
  const traj = (id: string, doc: object) => write(join(dir, id, `${id}.traj.json`), doc);
  traj(
    "m2__a-1",
    mini2Document({
      instanceId: "m2__a-1",
      exitStatus: "Submitted",
      submission: PATCH,
      apiCalls: 3,
      cost: 0.3,
      steps: [
        { commands: ["ls src/", "cat django/x.py"], created: 1000, done: 1002, observedAt: 1003 },
        { commands: ["sed -i s/a/b/ django/x.py"], created: 1005, done: 1006, observedAt: 1007 },
        { commands: [SUBMIT_2], observations: [PATCH], created: 1008, done: 1009, observedAt: 1010 },
      ],
    }),
  );
  traj(
    "m2__a-2",
    mini2Document({
      instanceId: "m2__a-2",
      exitStatus: "LimitsExceeded",
      submission: "",
      apiCalls: 4,
      cost: 0.5,
      stepLimit: 4,
      steps: [
        { commands: ["ls"], created: 2000, done: 2001, observedAt: 2002 },
        { commands: ["grep -rn foo django/"], created: 2003, done: 2004, observedAt: 2005 },
        { output: "Let me write a very long", finish: "length", created: 2010, done: 2040, completionTokens: 4096 },
        { formatError: "Tool call error: no tool call" },
        { commands: ["ls django"], created: 2041, done: 2042, observedAt: 2043 },
      ],
    }),
  );
  traj(
    "m2__a-3",
    mini2Document({
      instanceId: "m2__a-3",
      exitStatus: "Submitted",
      submission: PATCH,
      apiCalls: 7,
      cost: 0.2,
      steps: [
        { commands: ["cat /workspace/src/app.py"], observations: [NO_FILE("/workspace/src/app.py")] },
        { commands: ["cat src/app.py"], observations: [NO_FILE("src/app.py")] },
        { commands: ["cat app/main.py"], observations: [NO_FILE("app/main.py")] },
        {
          commands: ["head lib/a.py"],
          observations: [`head: cannot open 'lib/a.py' for reading: No such file or directory`],
        },
        { commands: ["tail lib/b.py"], observations: [NO_FILE("lib/b.py")] },
        { output: REPEATED, commands: ["ls"], created: 3000, done: 3005, completionTokens: 50 },
        { commands: [SUBMIT_2], observations: [PATCH] },
      ],
    }),
  );
  traj(
    "m2__a-4",
    mini2Document({
      instanceId: "m2__a-4",
      exitStatus: "Submitted",
      submission: "",
      apiCalls: 3,
      cost: 0.1,
      steps: [
        { commands: ["ls"] },
        { formatError: "Tool call error:\n\n<error>\nMissing 'command' argument in bash tool call.\n</error>" },
        { commands: [SUBMIT_2], observations: [""] },
      ],
    }),
  );
  traj(
    "m2__a-5",
    mini2Document({
      instanceId: "m2__a-5",
      exitStatus: "LimitsExceeded",
      submission: PATCH,
      apiCalls: 2,
      cost: 3.2,
      steps: [{ commands: ["ls"] }, { commands: ["cat a/b.py"] }],
    }),
  );
  traj(
    "m2__a-6",
    mini2Document({
      instanceId: "m2__a-6",
      exitStatus: "ContextWindowExceededError",
      submission: "",
      apiCalls: 1,
      cost: 0.9,
      steps: [{ commands: ["cat big/file.txt"] }],
    }),
  );
  write(join(dir, "m2__a-7", "m2__a-7.traj.json"), '{"info": {"exit_status": "Submitted"}, "messages": [');
  write(join(dir, "fake__fake-model.run1.json"), {
    total_instances: 7,
    resolved_ids: ["m2__a-1"],
    unresolved_ids: ["m2__a-3", "m2__a-4", "m2__a-5"],
    completed_ids: ["m2__a-1", "m2__a-3", "m2__a-4", "m2__a-5"],
    schema_version: 2,
  });
  write(join(dir, "preds.json"), { "m2__a-1": { model_patch: PATCH } });
  return dir;
}

// ---------------------------------------------------------------- mini-swe-agent 1.x

interface Mini1Step {
  output: string;
  /** The next user message (observation, format error, or the submission). */
  reply?: string;
  finish?: string;
  created?: number;
}

function mini1Document(spec: {
  instanceId: string;
  exitStatus: string;
  submission: string;
  apiCalls: number;
  stepLimit?: number;
  steps: Mini1Step[];
}): object {
  const messages: object[] = [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: `<pr_description>fix ${spec.instanceId}</pr_description>` },
  ];
  for (const step of spec.steps) {
    messages.push({
      role: "assistant",
      content: step.output,
      extra: {
        response: {
          created: step.created,
          choices: [{ finish_reason: step.finish ?? "stop", native_finish_reason: "STOP" }],
          usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70 },
        },
      },
    });
    if (step.reply !== undefined) messages.push({ role: "user", content: step.reply });
  }
  return {
    info: {
      exit_status: spec.exitStatus,
      submission: spec.submission,
      model_stats: { instance_cost: 0.2, api_calls: spec.apiCalls },
      mini_version: "1.15.0",
      config: { agent: { step_limit: spec.stepLimit ?? 250, cost_limit: 3 } },
    },
    messages,
    trajectory_format: "mini-swe-agent-1",
    instance_id: spec.instanceId,
  };
}

const bash = (command: string) => `THOUGHT: go.\n\n\`\`\`bash\n${command}\n\`\`\``;
const observation = (output: string) => `<returncode>0</returncode>\n<output>\n${output}\n</output>`;
export const SUBMIT_1 = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached";

/**
 * mini-swe-agent 1.x run, labels in per-instance logs/<id>/report.json and results_summary.json.
 * Known row: tasks 4, solved 1 (b-1), out of budget 1 (b-2 steps), wrong patch 1 (b-3), no patch
 * 1 (b-4, empty submission); counted calls [1, 1, 4, 6] → median 2.5; loops 2 (b-2 finish_reason
 * length, 60 s until the next request; b-4 a line 5 times in a row); bad prefix 1 (b-4); no file
 * 1 (b-4: 5 observations), 2 at threshold 4 (b-3 has 4).
 */
export function writeMini1Run(root: string): string {
  const dir = join(root, "mini1");
  const traj = (id: string, doc: object) => write(join(dir, "trajs", id, `${id}.traj.json`), doc);
  traj(
    "m1__b-1",
    mini1Document({
      instanceId: "m1__b-1",
      exitStatus: "Submitted",
      submission: PATCH,
      apiCalls: 3,
      steps: [
        { output: bash("ls"), reply: observation("django"), created: 100 },
        {
          output: `${bash("ls a")}\n${bash("ls b")}`,
          reply: "Please always provide EXACTLY ONE action in triple backticks, found 2 actions.",
          created: 110,
        },
        { output: bash(SUBMIT_1), reply: PATCH, created: 130 },
      ],
    }),
  );
  traj(
    "m1__b-2",
    mini1Document({
      instanceId: "m1__b-2",
      exitStatus: "LimitsExceeded",
      submission: "",
      apiCalls: 2,
      stepLimit: 2,
      steps: [
        {
          output: "THOUGHT: this goes on and on",
          finish: "length",
          reply: "Please always provide EXACTLY ONE action in triple backticks, found 0 actions.",
          created: 200,
        },
        { output: bash("echo hi"), reply: observation("hi"), created: 260 },
      ],
    }),
  );
  traj(
    "m1__b-3",
    mini1Document({
      instanceId: "m1__b-3",
      exitStatus: "Submitted",
      submission: PATCH,
      apiCalls: 5,
      steps: [
        { output: bash("cat a.py"), reply: observation(NO_FILE("a.py")), created: 300 },
        { output: bash("cat b.py"), reply: observation(NO_FILE("b.py")), created: 301 },
        { output: bash("cat c.py"), reply: observation(NO_FILE("c.py")), created: 302 },
        { output: bash("cat d.py"), reply: observation(NO_FILE("d.py")), created: 303 },
        { output: bash(SUBMIT_1), reply: PATCH, created: 304 },
      ],
    }),
  );
  traj(
    "m1__b-4",
    mini1Document({
      instanceId: "m1__b-4",
      exitStatus: "Submitted",
      submission: "",
      apiCalls: 7,
      steps: [
        {
          output: bash("cat /workspace/src/app.py"),
          reply: observation(NO_FILE("/workspace/src/app.py")),
          created: 400,
        },
        ...[1, 2, 3, 4].map((k) => ({
          output: bash(`cat src/m${k}.py`),
          reply: observation(NO_FILE(`src/m${k}.py`)),
          created: 400 + k,
        })),
        { output: `${"Let me look again.\n".repeat(5)}${bash("ls")}`, reply: observation("a.py"), created: 410 },
        { output: bash(SUBMIT_1), reply: "", created: 420 },
      ],
    }),
  );
  write(join(dir, "logs", "m1__b-1", "report.json"), {
    patch_is_None: false,
    patch_exists: true,
    patch_successfully_applied: true,
    resolved: true,
  });
  write(join(dir, "logs", "m1__b-3", "report.json"), { "m1__b-3": { patch_is_None: false, resolved: false } });
  write(join(dir, "results_summary.json"), {
    total: 3,
    instances: [
      { instance_id: "m1__b-1", resolved: true, patch_applied: true },
      { instance_id: "m1__b-2", resolved: false, patch_applied: false },
      { instance_id: "m1__b-3", resolved: false, patch_applied: true },
      { instance_id: "m1__b-4", resolved: false, patch_applied: false },
    ],
  });
  return dir;
}

// ---------------------------------------------------------------- SWE-agent 0.x

function sweDocument(spec: {
  exitStatus?: string;
  submission: string | null;
  actions: [string, string][];
  apiCalls: number;
  cost: number;
  thinking?: string;
}): object {
  const trajectory = spec.actions.map(([action, observation]) => ({
    action: `${action}\n`,
    observation,
    response: `DISCUSSION\n${spec.thinking ?? "I will run this.\n"}\n\`\`\`\n${action}\n\`\`\``,
    thought: "DISCUSSION\nI will run this.",
    state: '{"open_file": "n/a", "working_dir": "/django__django"}',
  }));
  const history = trajectory.flatMap((step) => [
    { role: "assistant", content: step.response, thought: step.thought, action: step.action, agent: "primary" },
    { role: "user", content: step.observation, agent: "primary" },
  ]);
  return {
    environment: "swe_main",
    trajectory,
    history: [{ role: "system", content: "SETTING", agent: "primary" }, ...history],
    info: {
      ...(spec.exitStatus === undefined ? {} : { exit_status: spec.exitStatus, submission: spec.submission }),
      model_stats: {
        total_cost: 50,
        instance_cost: spec.cost,
        tokens_sent: 1000 * spec.apiCalls,
        tokens_received: 100 * spec.apiCalls,
        api_calls: spec.apiCalls,
      },
    },
  };
}

/**
 * SWE-agent 0.x run, labels in final_report.json. Known row: tasks 6, solved 1 (c-1), out of
 * budget 2 (c-2 "submitted (exit_cost)" with a patch, c-3 exit_context), wrong patch 1 (c-6),
 * no patch 2 (c-4 early_exit, c-5 no exit status); counted calls [3, 1, 2, 5, 1, 2] → median 2;
 * loops 1 (c-3 repeats a line 6 times; SWE-agent logs no finish_reason); bad prefix 1 (c-6
 * opens /workspace/src/main.py); no file 1 (c-4); no times.
 */
export function writeSweAgentRun(root: string): string {
  const dir = join(root, "swe");
  const traj = (id: string, doc: object) => write(join(dir, `${id}.traj`), doc);
  traj(
    "s__c-1",
    sweDocument({
      exitStatus: "submitted",
      submission: PATCH,
      apiCalls: 4,
      cost: 0.4,
      actions: [
        ["find_file x.py", "Found 1 matches"],
        ["open django/x.py", "[File: /django__django/django/x.py (1 lines total)]"],
        ["edit 1:1\nb\nend_of_edit", "File updated."],
        ["submit", PATCH],
      ],
    }),
  );
  traj(
    "s__c-2",
    sweDocument({
      exitStatus: "submitted (exit_cost)",
      submission: PATCH,
      apiCalls: 20,
      cost: 2.1,
      actions: [
        ["open django/x.py", "[File: /django__django/django/x.py (1 lines total)]"],
        ["exit_cost", "Exited (autosubmitted)"],
      ],
    }),
  );
  traj(
    "s__c-3",
    sweDocument({
      exitStatus: "exit_context",
      submission: null,
      apiCalls: 9,
      cost: 1.5,
      thinking: "We should scroll down.\n".repeat(6),
      actions: [
        ["search_dir foo", "Found 3 matches"],
        ["scroll_down", "[File …]"],
        ["exit_context", "Exited"],
      ],
    }),
  );
  traj(
    "s__c-4",
    sweDocument({
      exitStatus: "early_exit",
      submission: null,
      apiCalls: 5,
      cost: 0.3,
      actions: [1, 2, 3, 4, 5].map(
        (i) =>
          [
            `python reproduce${i}.py`,
            `python: can't open file '/django__django/reproduce${i}.py': [Errno 2] No such file or directory`,
          ] as [string, string],
      ),
    }),
  );
  traj("s__c-5", sweDocument({ submission: null, apiCalls: 12, cost: 1.7, actions: [["goto 10", "[File …]"]] }));
  traj(
    "s__c-6",
    sweDocument({
      exitStatus: "submitted",
      submission: PATCH,
      apiCalls: 3,
      cost: 0.2,
      actions: [
        ["open /workspace/src/main.py", "File /workspace/src/main.py not found"],
        ["create notes.txt", "[File: /django__django/notes.txt (1 lines total)]"],
        ["submit", PATCH],
      ],
    }),
  );
  write(join(dir, "final_report.json"), {
    stats: { generated: 6, with_logs: 6, applied: 4, resolved: 1 },
    resolved: ["s__c-1"],
    resolved_per_project: { "s/s": ["s__c-1"] },
  });
  return dir;
}

// ---------------------------------------------------------------- AutoCodeRover

function acrFolder(
  dir: string,
  spec: {
    category: string;
    folder: string;
    round: number;
    assistant: number;
    calls: { func_name: string; arguments: object; call_ok: boolean }[];
    patch?: string;
    start: number;
    end: number;
    extract: string[];
    lastOutput?: string;
  },
): void {
  const folder = join(dir, spec.category, spec.folder);
  const conversation = [
    { role: "system", content: "You are a software developer." },
    { role: "user", content: "<issue>x</issue>" },
  ];
  for (let i = 0; i < spec.assistant; i += 1)
    conversation.push(
      { role: "assistant", content: `search_class("C${i}")` },
      { role: "user", content: `Result of search_class("C${i}"):\nFound 1 classes.` },
    );
  if (spec.lastOutput !== undefined) conversation.push({ role: "assistant", content: spec.lastOutput });
  write(join(folder, `conversation_round_${spec.round}.json`), conversation);
  write(join(folder, "tool_call_sequence.json"), spec.calls);
  write(join(folder, "cost.json"), {
    model: "gpt-4-0125-preview",
    total_input_tokens: 5000,
    total_output_tokens: 500,
    total_tokens: 5500,
    total_cost: 0.065,
    start_epoch: spec.start,
    end_epoch: spec.end,
    elapsed_seconds: spec.end - spec.start,
  });
  write(join(folder, "extract_status.json"), { extract_status: spec.extract });
  if (spec.patch !== undefined) write(join(folder, "extracted_patch_1.diff"), spec.patch);
}

const call = (func_name: string, args: object, ok = true) => ({ func_name, arguments: args, call_ok: ok });

/**
 * AutoCodeRover run, labels in new_eval_results/report.json. Known row: tasks 4, solved 1 (d-1),
 * out of budget 1 (d-3: conversation_round_11, more than 10 rounds), wrong patch 1 (d-2), no
 * patch 1 (d-4; an older copy of d-4 in another category is a problem); counted calls
 * [4, 2, 3, 1] → median 2.5; loops 1 (d-4 repeats a line 7 times); d-1 took 100 s. With the
 * repository's files known, d-2's search in django/missing.py is a bad path. (AutoCodeRover
 * keeps no observations and no finish_reason: no file and cut outputs cannot be seen.)
 */
export function writeAutoCodeRoverRun(root: string): string {
  const dir = join(root, "acr");
  acrFolder(dir, {
    category: "applicable_patch",
    folder: "a__d-1_2024-04-06_13-00-00",
    round: 2,
    assistant: 3,
    calls: [
      call("search_class", { class_name: "A" }),
      call("search_method", { method_name: "m" }),
      call("search_method_in_class", { method_name: "x", class_name: "A" }, false),
      call("search_code", { code_str: "y" }),
    ],
    patch: PATCH,
    start: 1000,
    end: 1100,
    extract: ["APPLICABLE_PATCH"],
  });
  acrFolder(dir, {
    category: "applicable_patch",
    folder: "a__d-2_2024-04-06_13-10-00",
    round: 3,
    assistant: 4,
    calls: [
      call("search_method_in_file", { method_name: "f", file_name: "django/missing.py" }, false),
      call("search_class_in_file", { class_name: "B", file_name: "django/real.py" }),
    ],
    patch: PATCH,
    start: 2000,
    end: 2050,
    extract: ["APPLICABLE_PATCH"],
  });
  acrFolder(dir, {
    category: "raw_patch_but_unmatched",
    folder: "a__d-3_2024-04-06_13-20-00",
    round: 11,
    assistant: 10,
    calls: [
      call("search_class", { class_name: "C" }),
      call("search_class", { class_name: "D" }, false),
      call("search_code", { code_str: "z" }),
    ],
    start: 3000,
    end: 3300,
    extract: ["RAW_PATCH_BUT_UNMATCHED", "RAW_PATCH_BUT_UNPARSED", "RAW_PATCH_BUT_UNPARSED"],
  });
  acrFolder(dir, {
    category: "raw_patch_but_unmatched",
    folder: "a__d-4_2024-04-06_13-30-00",
    round: 3,
    assistant: 2,
    lastOutput: "I cannot run the search.\n".repeat(7),
    calls: [call("search_class", { class_name: "E" })],
    start: 4000,
    end: 4020,
    extract: ["RAW_PATCH_BUT_UNMATCHED"],
  });
  acrFolder(dir, {
    category: "raw_patch_but_unparsed",
    folder: "a__d-4_2024-04-06_12-00-00",
    round: 2,
    assistant: 1,
    calls: [],
    start: 100,
    end: 120,
    extract: ["RAW_PATCH_BUT_UNPARSED"],
  });
  write(join(dir, "stats.json"), { num_tasks: 4, model: "gpt-4-0125-preview" });
  write(join(dir, "new_eval_results", "report.json"), {
    no_generation: [],
    generated: ["a__d-1", "a__d-2", "a__d-3", "a__d-4"],
    applied: ["a__d-1", "a__d-2"],
    no_apply: [],
    resolved: ["a__d-1"],
  });
  return dir;
}

// ---------------------------------------------------------------- loclab

const FGL_CALL = (name: string, args: Record<string, unknown>, observation = "ok") => ({
  name,
  arguments: args,
  observation,
});

function loclab(
  instanceId: string,
  exit: string,
  patch: string | null,
  steps: Trajectory["steps"],
  extra: Partial<Trajectory> = {},
): Trajectory {
  return { format: "loclab", instanceId, source: "", outcome: { exitStatus: exit, patch }, steps, ...extra };
}

/**
 * The loclab trajectories of the loclab run (also used to test the writer).
 * Known row (default options): tasks 5, solved 1 (e-1), out of budget 1 (e-2 step_limit),
 * wrong patch 1 (e-3), no patch 2 (e-4 whitespace patch, e-5 still "running"); counted calls
 * [2, 5, 3, 1, 4] → median 3; loops 2 (e-3 length, 20 s and 8,192 tokens; e-5 a line 5 times);
 * bad prefix 1 (e-4 reads /workspace/src/main.py); no file 1 (e-2: 5 observations). e-3 reads
 * src/ghost.py, a bad path when the repository's files are known (its own new_test.py is
 * not). With callBudget 4, e-5 is out of budget too; counting every tool, the median is 4.
 */
export function loclabTrajectories(): Trajectory[] {
  return [
    loclab(
      "l__e-1",
      "submitted",
      PATCH,
      [
        {
          index: 0,
          output: "read",
          finishReason: "tool_calls",
          toolCalls: [FGL_CALL("read_file", { path: "src/app.py" })],
          startedAt: 1_700_000_000,
          endedAt: 1_700_000_004,
          usage: { promptTokens: 1000, completionTokens: 20 },
        },
        {
          index: 1,
          output: "test",
          toolCalls: [FGL_CALL("run_command", { command: "pytest -q tests/test_app.py" }), FGL_CALL("get_status", {})],
          startedAt: 1_700_000_005,
          endedAt: 1_700_000_030,
          usage: { promptTokens: 1100, completionTokens: 30 },
        },
        {
          index: 2,
          output: "submit",
          toolCalls: [FGL_CALL("submit_patch", {})],
          startedAt: 1_700_000_031,
          endedAt: 1_700_000_032,
        },
      ],
      {
        model: "fake/model",
        limits: { steps: 36, calls: 36 },
        startedAt: 1_700_000_000,
        endedAt: 1_700_000_040,
        usage: { promptTokens: 2100, completionTokens: 50, apiCalls: 3 },
      },
    ),
    loclab(
      "l__e-2",
      "step_limit",
      null,
      [0, 1, 2, 3, 4].map((index) => ({
        index,
        output: "more",
        toolCalls: [
          FGL_CALL("read_file", { path: `src/m${index}.py` }, `error: src/m${index}.py: No such file or directory`),
        ],
      })),
      { limits: { steps: 5 } },
    ),
    loclab("l__e-3", "submitted", PATCH, [
      {
        index: 0,
        output: "write a test",
        toolCalls: [FGL_CALL("write_file", { path: "new_test.py", content: "def test(): pass\n" })],
      },
      { index: 1, output: "read it back", toolCalls: [FGL_CALL("read_file", { path: "new_test.py" })] },
      {
        index: 2,
        output: "x ".repeat(50),
        finishReason: "length",
        toolCalls: [],
        startedAt: 1_700_000_100,
        endedAt: 1_700_000_120,
        usage: { completionTokens: 8192 },
      },
      {
        index: 3,
        output: "read",
        toolCalls: [FGL_CALL("read_file", { path: "src/ghost.py" }, "error: src/ghost.py: No such file or directory")],
      },
    ]),
    loclab("l__e-4", "submitted", "  \n", [
      {
        index: 0,
        output: "done",
        toolCalls: [
          FGL_CALL("read_file", { path: "/workspace/src/main.py" }),
          FGL_CALL("get_status", {}),
          FGL_CALL("submit", {}),
        ],
      },
    ]),
    loclab(
      "l__e-5",
      "running",
      null,
      [0, 1, 2, 3].map((index) => ({
        index,
        output: index === 0 ? "run\n".repeat(5) : "run",
        toolCalls: [FGL_CALL("run_command", { command: `python t${index}.py` })],
      })),
    ),
  ];
}

/** The loclab run (labels in a resolved-matrix CSV beside it, given explicitly). */
export function writeLoclabRun(root: string): { dir: string; matrix: string } {
  const dir = join(root, "loclab");
  for (const trajectory of loclabTrajectories())
    write(join(dir, `${trajectory.instanceId}.traj.jsonl`), formatLoclabTrajectory(trajectory));
  const matrix = join(root, "loclab-resolved.csv");
  write(matrix, "instance_id,loclab,other\r\nl__e-1,1,1\r\nl__e-2,0,1\r\nl__e-3,0,0\r\nl__e-4,0,0\r\nl__e-5,0,1\r\n");
  return { dir, matrix };
}

/** The repository's files for the file-list rule (bad paths). */
export const REPOSITORY_FILES: Record<string, ReadonlySet<string>> = {
  "a__d-2": new Set(["django/real.py", "django/x.py"]),
  "l__e-3": new Set(["src/app.py", "tests/test_app.py"]),
};
