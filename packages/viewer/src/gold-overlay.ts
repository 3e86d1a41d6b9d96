import type { LineRange, Touch } from "./touches.js";

/**
 * How close a touch came to the gold (docs/definitions.md §12; the gold files and spans of §2):
 * `hit` — it showed a line of a gold span; `near` — a gold file, but only lines within
 * `nearLines` of a span, or no lines at all (a tree listing, an edit); `miss` — any other file.
 * Lines farther than `nearLines` from every span of a gold file are `miss` too: reading the
 * wrong end of the right file is not close.
 */
export type OverlayMark = "hit" | "near" | "miss";

export interface GoldSpanRef {
  path: string;
  startLine: number;
  endLine: number;
}

export interface OverlayOptions {
  /** Lines around a span that count as near; default 20. */
  nearLines?: number;
}

export const DEFAULT_NEAR_LINES = 20;

/** The mark of one touch against the gold files and spans. */
export function markTouch(
  touch: Touch,
  gold: { files: readonly string[]; spans: readonly GoldSpanRef[] },
  options: OverlayOptions = {},
): OverlayMark {
  if (!gold.files.includes(touch.path)) return "miss";
  const spans = gold.spans.filter((span) => span.path === touch.path);
  if (touch.lines.length === 0 || spans.length === 0) return "near";
  const near = options.nearLines ?? DEFAULT_NEAR_LINES;
  let best: OverlayMark = "miss";
  for (const range of touch.lines)
    for (const span of spans) {
      const mark = rangeMark(range, span, near);
      if (mark === "hit") return mark;
      if (mark === "near") best = mark;
    }
  return best;
}

export interface SpanCoverage extends GoldSpanRef {
  mark: OverlayMark;
  /** The steps (0-based) whose calls showed a line of the span (hit) or came near it. */
  hitSteps: number[];
  nearSteps: number[];
}

/**
 * Each gold span with the best mark any touch gave it, and the steps that did: the answer to
 * "did the agent ever look at the lines the fix changes, and when".
 */
export function spanCoverage(
  spans: readonly GoldSpanRef[],
  touches: readonly { step: number; touch: Touch }[],
  options: OverlayOptions = {},
): SpanCoverage[] {
  const near = options.nearLines ?? DEFAULT_NEAR_LINES;
  return spans.map((span) => {
    const hitSteps = new Set<number>();
    const nearSteps = new Set<number>();
    for (const { step, touch } of touches) {
      if (touch.path !== span.path) continue;
      if (touch.lines.length === 0) {
        nearSteps.add(step);
        continue;
      }
      for (const range of touch.lines) {
        const mark = rangeMark(range, span, near);
        if (mark === "hit") hitSteps.add(step);
        else if (mark === "near") nearSteps.add(step);
      }
    }
    const mark: OverlayMark = hitSteps.size > 0 ? "hit" : nearSteps.size > 0 ? "near" : "miss";
    return {
      ...span,
      mark,
      hitSteps: [...hitSteps].sort((a, b) => a - b),
      nearSteps: [...nearSteps].sort((a, b) => a - b),
    };
  });
}

/** Lines of a gold file against one of its spans: `hit` when they share a line, `near` within `near` lines. */
function rangeMark(range: LineRange, span: GoldSpanRef, near: number): OverlayMark {
  if (overlaps(range, { start: span.startLine, end: span.endLine })) return "hit";
  if (overlaps(range, { start: span.startLine - near, end: span.endLine + near })) return "near";
  return "miss";
}

function overlaps(a: LineRange, b: LineRange): boolean {
  return a.start <= b.end && b.start <= a.end;
}
