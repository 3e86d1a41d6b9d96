import type { ChatMessage } from "@loclab/agent";

/**
 * Context compaction as FGL's harness has it (off by default): once at least `interval` turns
 * have passed since the last one and the last prompt held at least `thresholdTokens`, the
 * fixer's own model summarizes the conversation; the summary replaces every turn but the last
 * `overlap`, and at most `retention` summaries are kept (the oldest dropped first).
 */
export interface FixerCompaction {
  interval: number;
  overlap: number;
  thresholdTokens: number;
  retention: number;
}

/** FGL's settings: interval 15, overlap 2, threshold 14,336 tokens, retention 5. */
export const FGL_COMPACTION: FixerCompaction = { interval: 15, overlap: 2, thresholdTokens: 14_336, retention: 5 };

/** Whether a compaction is due before the next turn. */
export function compactionDue(
  settings: FixerCompaction,
  state: { turns: number; lastCompactionTurn: number; lastPromptTokens: number; turnsInContext: number },
): boolean {
  return (
    state.turns - state.lastCompactionTurn >= settings.interval &&
    state.lastPromptTokens >= settings.thresholdTokens &&
    state.turnsInContext > settings.overlap
  );
}

/**
 * The conversation after a compaction, pure: its first two messages (system, issue), then the
 * summaries kept (the newest `retention`), then the last `overlap` turns as they were.
 * `turnStarts` are the indices in `messages` where each turn's answer sits; the result gives
 * them for the new messages, with how many turns the summary replaced.
 */
export function compactMessages(
  messages: readonly ChatMessage[],
  turnStarts: readonly number[],
  summaries: readonly string[],
  settings: Pick<FixerCompaction, "overlap" | "retention">,
): { messages: ChatMessage[]; turnStarts: number[]; summaries: string[]; turnsReplaced: number } {
  const keepFrom = turnStarts[turnStarts.length - settings.overlap] ?? messages.length;
  const kept = summaries.slice(-settings.retention);
  const head = messages.slice(0, 2);
  const shift = head.length + kept.length - keepFrom;
  return {
    messages: [
      ...head,
      ...kept.map((text, index) => ({
        role: "user" as const,
        content: `Summary ${index + 1} of ${kept.length} of your work so far:\n\n${text}`,
      })),
      ...messages.slice(keepFrom),
    ],
    turnStarts: turnStarts.filter((start) => start >= keepFrom).map((start) => start + shift),
    summaries: kept,
    turnsReplaced: turnStarts.filter((start) => start < keepFrom).length,
  };
}
