import { describe, expect, it } from "vitest";
import {
  budgetExit,
  callKey,
  type ChatMessage,
  estimateTokens,
  fillTemplate,
  readPromptTemplate,
  repeatedLine,
  submissionSchema,
  toolProtocol,
  truncateOldObservations,
} from "../src/index.js";

describe("prompt templates", () => {
  it("fills every placeholder and refuses a missing or an unused value", async () => {
    expect(fillTemplate("{{a}} and {{b}}", { a: "1", b: "2" })).toBe("1 and 2");
    expect(() => fillTemplate("{{a}}", {})).toThrow("needs a value for {{a}}");
    expect(() => fillTemplate("{{a}}", { a: "1", b: "2" })).toThrow("no placeholder for {{b}}");
    expect(await readPromptTemplate("system")).toContain("{{maxTurns}}");
  });
});

describe("repetition", () => {
  it("finds a line repeated 5 times in a row, ignoring blank lines, and nothing below that", () => {
    expect(repeatedLine("x\n\nx\nx\n  x\nx\n")).toBe("x");
    expect(repeatedLine("x\nx\nx\nx\ny\nx\n")).toBeUndefined();
  });

  it("identifies a call by name and arguments, whatever the key order and spacing", () => {
    expect(callKey({ name: "view_file", arguments: '{"path":"a.py","start":1}' })).toBe(
      callKey({ name: "view_file", arguments: '{ "start": 1, "path": "a.py" }' }),
    );
    expect(callKey({ name: "view_file", arguments: '{"path":"a.py"}' })).not.toBe(
      callKey({ name: "search_code", arguments: '{"path":"a.py"}' }),
    );
  });
});

describe("truncateOldObservations", () => {
  const turn = (n: number): ChatMessage[] => [
    { role: "assistant", content: null, toolCalls: [{ id: `c${n}`, name: "view_file", arguments: "{}" }] },
    { role: "tool", toolCallId: `c${n}`, content: "x".repeat(400) },
  ];
  const messages: ChatMessage[] = [
    { role: "system", content: "s".repeat(400) },
    { role: "user", content: "u".repeat(400) },
    ...turn(1),
    ...turn(2),
    ...turn(3),
    ...turn(4),
  ];

  it("cuts the oldest observations first, only as far as needed, the last 2 turns only when that is not enough, never the first two messages", () => {
    expect(estimateTokens(messages)).toBe(611); // (800 + 4 × (9 + 2 + 400)) / 4, rounded up
    const { messages: cut, truncated } = truncateOldObservations(messages, { limitTokens: 550 });
    expect(truncated).toBe(1);
    expect(cut[3]?.content).toBe("[observation of 400 characters removed to fit the context window]");
    expect(cut[5]?.content).toBe("x".repeat(400));
    expect(messages[3]?.content).toBe("x".repeat(400)); // the input is not changed

    // Cutting the two old observations is enough for 450 (611 − 2 × 334 / 4): the last 2 turns stay whole.
    const old = truncateOldObservations(messages, { limitTokens: 450 });
    expect(old.truncated).toBe(2);
    expect(old.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(old.messages.slice(6)).toEqual(messages.slice(6));

    // 350 is not reached that way: turn 3's observation goes too, and the newest keeps only its beginning.
    const tight = truncateOldObservations(messages, { limitTokens: 350 });
    expect(tight.truncated).toBe(4);
    expect(tight.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(tight.messages[7]?.content).toBe("[observation of 400 characters removed to fit the context window]");
    const newest = tight.messages[9]?.content as string;
    expect(newest).toMatch(/^x+\n\[… \d+ more characters of this observation cut to fit the context window\]$/);
    expect(estimateTokens(tight.messages)).toBeLessThanOrEqual(350);

    // Nothing left to cut but the first two messages: still over, and they stay.
    const all = truncateOldObservations(messages, { limitTokens: 10 });
    expect(all.messages.slice(0, 2)).toEqual(messages.slice(0, 2));
    expect(estimateTokens(all.messages)).toBeGreaterThan(10);
  });
});

describe("submissionSchema", () => {
  it("caps the locations at maxLocations", () => {
    const location = { path: "a.py", startLine: 1, endLine: 2, role: "edit" };
    const finding = {
      locationExplanation: "a",
      rootCause: "b",
      solutionIdea: "c",
      dependencies: "d",
      testingImpact: "e",
    };
    expect(submissionSchema(2).safeParse({ locations: [location, location], finding }).success).toBe(true);
    expect(submissionSchema(2).safeParse({ locations: [location, location, location], finding }).success).toBe(false);
  });
});

describe("budgetExit", () => {
  const state = { turns: 0, totalTokens: 0, elapsedMs: 0, repairPending: false };
  it("turns, then tokens, then wall time; a repair turn is owed even when the turns are spent", () => {
    expect(budgetExit(state, { maxTurns: 20 })).toBeUndefined();
    expect(budgetExit({ ...state, turns: 20 }, { maxTurns: 20 })).toEqual({ exit: "step_limit", budget: "turns" });
    expect(budgetExit({ ...state, turns: 20, repairPending: true }, { maxTurns: 20 })).toBeUndefined();
    expect(budgetExit({ ...state, totalTokens: 500 }, { maxTurns: 20, maxTotalTokens: 500 })).toEqual({
      exit: "cost_limit",
      budget: "tokens",
    });
    expect(budgetExit({ ...state, elapsedMs: 1000 }, { maxTurns: 20, maxWallMs: 999 })).toEqual({
      exit: "time_limit",
      budget: "wall_time",
    });
  });
});

describe("toolProtocol", () => {
  it("native reads the calls as sent; text reads one ```json block; both say what is missing", () => {
    const native = toolProtocol("native");
    expect(native.readCalls({ content: null, toolCalls: [] }, 0)).toEqual({
      calls: [],
      problem: { kind: "missing", problem: "the answer called no tool" },
    });
    const text = toolProtocol("text");
    expect(
      text.readCalls(
        { content: 'x\n```json\n{"tool": "view_file", "arguments": {"path": "a.py"}}\n```', toolCalls: [] },
        3,
      ),
    ).toEqual({ calls: [{ id: "text_3", name: "view_file", arguments: '{"path":"a.py"}' }] });
    expect(text.request([{ role: "user", content: "u" }], [{ name: "view_file" }])).toEqual({
      messages: [{ role: "user", content: "u" }],
    });
    expect(() => toolProtocol("json" as never)).toThrow('toolMode must be "native" or "text", not "json"');
  });
});
