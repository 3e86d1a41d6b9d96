import { describe, expect, it } from "vitest";
import {
  badPaths,
  budgetExit,
  countedCalls,
  lineRepeats,
  loopOutputs,
  median,
  parseResolvedSpec,
  parseRunSpec,
  parseTaskList,
  pathsInToolCall,
  type TaskSummary,
} from "../src/index.js";
import { taskSummary } from "./task-summary.js";

// The rules behind each column, one by one.

function summary(overrides: Partial<TaskSummary>): TaskSummary {
  return taskSummary({ format: "mini-swe-agent-2", exitStatus: "Submitted", ...overrides });
}

describe("lineRepeats", () => {
  it("finds the longest run of one line (blank lines aside) and the most repeats anywhere", () => {
    expect(lineRepeats("a\na\n\na\nb\na")).toEqual({ longestRun: 3, mostRepeats: 4 });
    expect(lineRepeats("  same  \nsame\r\nsame")).toEqual({ longestRun: 3, mostRepeats: 3 });
    expect(lineRepeats("")).toEqual({ longestRun: 0, mostRepeats: 0 });
    expect(lineRepeats("x\ny\nx\ny\nx\ny")).toEqual({ longestRun: 1, mostRepeats: 3 });
  });
});

describe("loopOutputs", () => {
  const task = summary({
    loopCandidates: [
      { step: 0, finishReason: "length", longestLineRun: 1, mostLineRepeats: 1, seconds: 9 },
      { step: 1, finishReason: "MAX_TOKENS", longestLineRun: 1, mostLineRepeats: 1 },
      { step: 2, finishReason: "stop", longestLineRun: 5, mostLineRepeats: 5 },
      { step: 3, longestLineRun: 1, mostLineRepeats: 8 },
    ],
  });

  it("flags finish_reason length / max_tokens, case-insensitive, and N consecutive repeats", () => {
    const loops = loopOutputs(task);
    expect(loops.finishLength.map((c) => c.step)).toEqual([0, 1]);
    expect(loops.repeatedLine.map((c) => c.step)).toEqual([2]);
    expect(loops.all.map((c) => c.step)).toEqual([0, 1, 2]);
  });

  it("counts repeats anywhere when asked", () => {
    expect(
      loopOutputs(task, { loops: { repeatedLineMode: "anywhere", repeatedLine: 6 } }).repeatedLine.map((c) => c.step),
    ).toEqual([3]);
  });
});

describe("pathsInToolCall", () => {
  it("takes path-like words of a command, and the targets it writes", () => {
    expect(pathsInToolCall({ name: "bash", arguments: { command: "cat /workspace/src/a.py > out/b.txt" } })).toEqual({
      used: ["/workspace/src/a.py", "out/b.txt"],
      created: ["out/b.txt"],
    });
    const chained = pathsInToolCall({
      name: "bash",
      arguments: { command: "mkdir -p tmp/x && touch tmp/x/y.py && python tmp/x/y.py 2>&1 | tee log/run.txt" },
    });
    expect(chained.used).toEqual(["tmp/x", "tmp/x/y.py", "log/run.txt"]);
    expect(chained.created.sort()).toEqual(["log/run.txt", "tmp/x", "tmp/x/y.py"]);
    expect(
      pathsInToolCall({
        name: "bash",
        arguments: { command: "ls && grep -rn 'def f' *.py && curl https://example.org/a/b" },
      }),
    ).toEqual({ used: [], created: [] });
    expect(pathsInToolCall({ name: "create", arguments: { command: "create reproduce.py" } })).toEqual({
      used: [],
      created: ["reproduce.py"],
    });
  });

  it("takes arguments under a path-like key, created by write/create tools", () => {
    expect(pathsInToolCall({ name: "read_file", arguments: { path: "src/a.py", start: 3 } })).toEqual({
      used: ["src/a.py"],
      created: [],
    });
    expect(
      pathsInToolCall({ name: "write_file", arguments: { path: "t.py", content: "x = '/workspace/src/z'" } }),
    ).toEqual({ used: ["t.py"], created: ["t.py"] });
    expect(
      pathsInToolCall({ name: "search_method_in_file", arguments: { method_name: "f", file_name: "django/a.py" } }),
    ).toEqual({ used: ["django/a.py"], created: [] });
  });
});

describe("badPaths", () => {
  it("flags paths under a configured prefix, the prefix itself included", () => {
    expect(
      badPaths(summary({ paths: ["/workspace/src", "/workspace/srcs/a.py", "/workspace/src/x.py", "src/x.py"] })),
    ).toEqual(["/workspace/src", "/workspace/src/x.py"]);
    expect(badPaths(summary({ paths: ["/opt/app/a.py"] }), { badPathPrefixes: ["/opt/app"] })).toEqual([
      "/opt/app/a.py",
    ]);
  });

  it("with the repository's files: flags paths under a root or relative that are no file or folder, except what the task created", () => {
    const files = new Set(["django/db/models.py", "setup.py"]);
    const task = summary({
      paths: [
        "/testbed/django/db/models.py",
        "/django__django/django/db",
        "django/ghost.py",
        "./setup.py",
        "/usr/lib/python3/x.py",
        "/tmp/a/b",
        "scripts/run.sh",
        "scripts/out/x.txt",
        "../up/a.py",
      ],
      createdPaths: ["scripts/run.sh", "scripts/out"],
    });
    expect(badPaths(task, { repositoryFiles: () => files, badPathPrefixes: [] })).toEqual(["django/ghost.py"]);
  });
});

describe("budgetExit", () => {
  it("mini-swe-agent: LimitsExceeded is steps when api_calls reached step_limit, else cost", () => {
    expect(
      budgetExit(summary({ exitStatus: "LimitsExceeded", apiCalls: 250, limits: { steps: 250, costUsd: 3 } }))?.limit,
    ).toBe("steps");
    expect(
      budgetExit(
        summary({ exitStatus: "LimitsExceeded", apiCalls: 40, costUsd: 3.01, limits: { steps: 250, costUsd: 3 } }),
      )?.limit,
    ).toBe("cost");
    expect(budgetExit(summary({ exitStatus: "LimitsExceeded", apiCalls: 40, limits: {} }))?.rule).toBe(
      "mini-swe-agent: exit LimitsExceeded (no cost_limit logged)",
    );
    expect(budgetExit(summary({ exitStatus: "TimeoutExpired" }))?.limit).toBe("time");
    expect(budgetExit(summary({ exitStatus: "ContextWindowExceededError" }))?.limit).toBe("context");
    expect(budgetExit(summary({ exitStatus: "RetryError", apiCalls: 250, limits: { steps: 250 } }))?.rule).toBe(
      "mini-swe-agent: not submitted and api_calls ≥ step_limit",
    );
    expect(budgetExit(summary({ exitStatus: "Submitted", apiCalls: 250, limits: { steps: 250 } }))).toBeNull();
    expect(budgetExit(summary({ exitStatus: "FormatError" }))).toBeNull();
  });

  it("SWE-agent: exit_cost (also autosubmitted) and exit_context; not early_exit", () => {
    const swe = (exitStatus: string | null) => budgetExit(summary({ format: "swe-agent", exitStatus }))?.limit ?? null;
    expect([
      swe("exit_cost"),
      swe("submitted (exit_cost)"),
      swe("exit_context"),
      swe("submitted (exit_context)"),
      swe("early_exit"),
      swe(null),
      swe("submitted"),
    ]).toEqual(["cost", "cost", "context", "context", null, null, null]);
  });

  it("AutoCodeRover: more rounds than the limit; loclab: its *_limit exits; any format: call budget and time limit", () => {
    expect(budgetExit(summary({ format: "autocoderover", rounds: 11 }))?.limit).toBe("rounds");
    expect(budgetExit(summary({ format: "autocoderover", rounds: 10 }))).toBeNull();
    expect(budgetExit(summary({ format: "loclab", exitStatus: "time_limit" }))?.limit).toBe("time");
    expect(budgetExit(summary({ format: "loclab", exitStatus: "error" }))).toBeNull();
    expect(
      budgetExit(summary({ format: "loclab", exitStatus: "error", toolCalls: { read_file: 36, submit_patch: 1 } }), {
        callBudget: 36,
      })?.limit,
    ).toBe("calls");
    expect(
      budgetExit(summary({ format: "loclab", exitStatus: "error", seconds: 1800 }), { timeLimitSeconds: 1800 })?.limit,
    ).toBe("time");
  });
});

describe("countedCalls and median", () => {
  it("counts every tool but the submission and status by default, or only the listed ones", () => {
    const task = { toolCalls: { bash: 10, submit: 1, get_status: 2, read_file: 3 } };
    expect(countedCalls(task)).toBe(13);
    expect(countedCalls(task, { only: ["read_file"] })).toBe(3);
    expect(countedCalls(task, { except: [] })).toBe(16);
  });

  it("takes the middle value, or the mean of the two middle ones", () => {
    expect([median([3, 1, 4, 1]), median([5]), median([])]).toEqual([2, 5, null]);
  });
});

describe("command-line values", () => {
  it("parses NAME=FORMAT:DIR, NAME=FILE and task lists", () => {
    expect(parseRunSpec("acr=autocoderover:/data/a:b=c")).toEqual({
      name: "acr",
      format: "autocoderover",
      dir: "/data/a:b=c",
    });
    expect(() => parseRunSpec("acr=acr:/x")).toThrow(
      '--run: "acr=acr:/x": unknown format "acr" (one of loclab, mini-swe-agent, swe-agent, autocoderover)',
    );
    expect(() => parseRunSpec("acr:/x")).toThrow('--run: "acr:/x" is not NAME=FORMAT:DIR');
    expect(parseResolvedSpec("a=x.csv#col")).toEqual({ name: "a", file: "x.csv#col" });
    expect(() => parseResolvedSpec("a=")).toThrow("is not NAME=FILE");
    expect(parseTaskList("\uFEFFa__a-1\r\n\n# comment\n  b__b-2  \na__a-1\n")).toEqual(["a__a-1", "b__b-2"]);
  });
});
