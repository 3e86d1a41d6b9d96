import type { ChatMessage } from "@loclab/agent";
import { describe, expect, it } from "vitest";
import { compactionDue, compactMessages, FGL_COMPACTION } from "../src/index.js";

// A conversation of three turns: each an answer with a tool call and its observation.
const turn = (n: number): ChatMessage[] => [
  { role: "assistant", content: null, toolCalls: [{ id: `c${n}`, name: "read_file", arguments: "{}" }] },
  { role: "tool", toolCallId: `c${n}`, content: `observation ${n}` },
];
const conversation: ChatMessage[] = [
  { role: "system", content: "system" },
  { role: "user", content: "issue" },
  ...turn(1),
  ...turn(2),
  ...turn(3),
];
const starts = [2, 4, 6];

describe("compaction", () => {
  it("is due after `interval` turns with a prompt at the threshold, and only with more turns than the overlap", () => {
    const state = { turns: 15, lastCompactionTurn: 0, lastPromptTokens: 14_336, turnsInContext: 3 };
    expect(compactionDue(FGL_COMPACTION, state)).toBe(true);
    expect(compactionDue(FGL_COMPACTION, { ...state, turns: 14 })).toBe(false);
    expect(compactionDue(FGL_COMPACTION, { ...state, lastPromptTokens: 14_335 })).toBe(false);
    expect(compactionDue(FGL_COMPACTION, { ...state, turnsInContext: 2 })).toBe(false);
  });

  it("keeps system, issue, the newest summaries and the last `overlap` turns, with their new starts", () => {
    const compacted = compactMessages(conversation, starts, ["old", "new"], { overlap: 1, retention: 1 });
    expect(compacted.turnsReplaced).toBe(2);
    expect(compacted.summaries).toEqual(["new"]);
    expect(compacted.messages).toEqual([
      conversation[0],
      conversation[1],
      { role: "user", content: "Summary 1 of 1 of your work so far:\n\nnew" },
      ...turn(3),
    ]);
    expect(compacted.turnStarts).toEqual([3]);
  });

  it("with no overlap every turn is replaced", () => {
    const compacted = compactMessages(conversation, starts, ["s"], { overlap: 0, retention: 5 });
    expect(compacted.turnsReplaced).toBe(3);
    expect(compacted.messages.map((message) => message.role)).toEqual(["system", "user", "user"]);
    expect(compacted.turnStarts).toEqual([]);
  });
});
