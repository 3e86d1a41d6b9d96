import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type LineSpan,
  type SpanOverlap,
  lineCount,
  overlapWithGoldLineSet,
  lineSetOf,
  spanCoverageRecall,
  spanOverlap,
  spanPrecision,
  spanTightness,
} from "../src/index.js";

const span = (path: string, startLine: number, endLine: number): LineSpan => ({ path, startLine, endLine });

describe("span metrics, hand-computed", () => {
  it("partial overlap", () => {
    const overlap = spanOverlap([span("a.py", 10, 19)], [span("a.py", 15, 24)]);
    expect(overlap).toEqual({
      goldLines: 10,
      predictedLines: 10,
      overlapLines: 5,
      tightnessSum: 5 / 15,
      tightnessCount: 1,
    });
    expect(spanCoverageRecall(overlap)).toBe(0.5);
    expect(spanPrecision(overlap)).toBe(0.5);
    expect(spanTightness(overlap)).toBeCloseTo(1 / 3, 15);
  });

  it("tightness takes, per gold span, the predicted span that overlaps it most", () => {
    const overlap = spanOverlap([span("a.py", 1, 4), span("a.py", 8, 30)], [span("a.py", 3, 10)]);
    // |g| = 8; p1 ∩ g = 3..4 (2 lines, union 10), p2 ∩ g = 8..10 (3 lines, union 28): best 2/10.
    expect(overlap.overlapLines).toBe(5);
    expect(spanTightness(overlap)).toBeCloseTo(0.2, 15);
  });

  it("other files, empty predictions and empty gold", () => {
    const elsewhere = spanOverlap([span("b.py", 1, 100)], [span("a.py", 1, 10)]);
    expect([spanCoverageRecall(elsewhere), spanPrecision(elsewhere), spanTightness(elsewhere)]).toEqual([
      0,
      0,
      undefined,
    ]);
    const nothing = spanOverlap([], [span("a.py", 1, 10)]);
    expect(spanPrecision(nothing)).toBe(0);
    expect(spanCoverageRecall(spanOverlap([span("a.py", 1, 2)], []))).toBeUndefined();
  });

  it("clips predictions past the end of a file when line counts are known", () => {
    const lineCounts = new Map([["a.py", 20]]);
    const overlap = spanOverlap([span("a.py", 11, 1_000_000)], [span("a.py", 15, 20)], { lineCounts });
    expect(overlap.predictedLines).toBe(10);
    expect(spanPrecision(overlap)).toBe(0.6);
    // Without them, a huge span costs nothing to compute and is counted as is.
    expect(spanOverlap([span("a.py", 11, 1_000_000)], [span("a.py", 15, 20)]).predictedLines).toBe(999_990);
  });

  it("refuses malformed spans, naming them", () => {
    expect(() => spanOverlap([span("a.py", 9, 3)], [span("a.py", 1, 2)])).toThrow("invalid span a.py:9-3");
    expect(() => lineSetOf([span("a.py", 0, 3)])).toThrow(RangeError);
  });
});

// Property tests over random spans in a few files.
const files = ["a.py", "b.py", "pkg/c.py"];
const arbSpan = fc
  .tuple(fc.constantFrom(...files), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 0, max: 60 }))
  .map(([path, start, length]) => span(path, start, start + length));
const arbSpans = fc.array(arbSpan, { maxLength: 12 });

/** Brute force over explicit (file, line) pairs: the definition, for checking the arithmetic. */
function bruteForce(predicted: LineSpan[], gold: LineSpan[]) {
  const lines = (spans: LineSpan[]) =>
    new Set(
      spans.flatMap((s) =>
        Array.from({ length: s.endLine - s.startLine + 1 }, (_, i) => `${s.path}:${s.startLine + i}`),
      ),
    );
  const p = lines(predicted);
  const g = lines(gold);
  const both = [...p].filter((line) => g.has(line)).length;
  return { recall: g.size === 0 ? undefined : both / g.size, precision: p.size === 0 ? 0 : both / p.size };
}

/** Counts must match exactly; the IoU sum only up to floating-point summation order. */
function expectSameOverlap(actual: SpanOverlap, expected: SpanOverlap): void {
  const { tightnessSum: actualSum, ...actualCounts } = actual;
  const { tightnessSum: expectedSum, ...expectedCounts } = expected;
  expect(actualCounts).toEqual(expectedCounts);
  expect(actualSum).toBeCloseTo(expectedSum, 12);
}

describe("span metrics, properties", () => {
  it("equal the brute-force line-set definition, and lie in [0, 1]", () => {
    fc.assert(
      fc.property(arbSpans, arbSpans, (predicted, gold) => {
        const overlap = spanOverlap(predicted, gold);
        const expected = bruteForce(predicted, gold);
        const recall = spanCoverageRecall(overlap);
        if (expected.recall === undefined) expect(recall).toBeUndefined();
        else expect(recall).toBeCloseTo(expected.recall, 12);
        expect(spanPrecision(overlap)).toBeCloseTo(expected.precision, 12);
        for (const value of [recall, spanPrecision(overlap), spanTightness(overlap)]) {
          if (value === undefined) continue;
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("prediction = gold gives 1 on all three", () => {
    fc.assert(
      fc.property(
        arbSpans.filter((spans) => spans.length > 0),
        (gold) => {
          const overlap = spanOverlap(gold, gold);
          expect([spanCoverageRecall(overlap), spanPrecision(overlap), spanTightness(overlap)]).toEqual([1, 1, 1]);
        },
      ),
    );
  });

  it("disjoint predictions give 0 recall and precision, and no tightness", () => {
    fc.assert(
      fc.property(
        arbSpans.filter((spans) => spans.length > 0),
        arbSpans,
        (gold, other) => {
          // Shift the prediction into lines the gold never reaches.
          const predicted = other.map((s) => span(s.path, s.startLine + 10_000, s.endLine + 10_000));
          const overlap = spanOverlap(predicted, gold);
          expect(spanCoverageRecall(overlap)).toBe(0);
          expect(spanPrecision(overlap)).toBe(0);
          expect(spanTightness(overlap)).toBeUndefined();
        },
      ),
    );
  });

  it("splitting a span, or merging overlapping spans, changes nothing", () => {
    fc.assert(
      fc.property(arbSpans, arbSpans, fc.nat(), (predicted, gold, seed) => {
        const split = predicted.flatMap((s) => {
          if (s.startLine === s.endLine) return [s];
          const cut = s.startLine + (seed % (s.endLine - s.startLine));
          return [span(s.path, s.startLine, cut), span(s.path, cut + 1, s.endLine)];
        });
        const duplicated = [
          ...predicted,
          ...predicted.map((s) => span(s.path, s.startLine, Math.max(s.startLine, s.endLine - 1))),
        ];
        const base = spanOverlap(predicted, gold);
        expectSameOverlap(spanOverlap(split, gold), base);
        expectSameOverlap(spanOverlap(duplicated, gold), base);
        expectSameOverlap(spanOverlap(predicted, [...gold].reverse()), base);
      }),
      { numRuns: 300 },
    );
  });

  it("tightness equals the brute-force best IoU over merged intervals", () => {
    fc.assert(
      fc.property(arbSpans, arbSpans, (predicted, gold) => {
        // Brute force: merge each side by explicit line sets, then compare every pair of runs.
        const runs = (spans: LineSpan[]) => {
          const byFile = new Map<string, number[]>();
          for (const s of spans)
            for (let line = s.startLine; line <= s.endLine; line += 1)
              byFile.set(s.path, [...(byFile.get(s.path) ?? []), line]);
          const out: LineSpan[] = [];
          for (const [path, lines] of byFile) {
            const sorted = [...new Set(lines)].sort((a, b) => a - b);
            let start = sorted[0] as number;
            for (let i = 1; i <= sorted.length; i += 1) {
              if (i < sorted.length && sorted[i] === (sorted[i - 1] as number) + 1) continue;
              out.push(span(path, start, sorted[i - 1] as number));
              start = sorted[i] as number;
            }
          }
          return out;
        };
        const p = runs(predicted);
        const scores = runs(gold)
          .map((g) =>
            Math.max(
              0,
              ...p
                .filter((q) => q.path === g.path)
                .map((q) => {
                  const overlap = Math.min(q.endLine, g.endLine) - Math.max(q.startLine, g.startLine) + 1;
                  return overlap <= 0
                    ? 0
                    : overlap / (g.endLine - g.startLine + 1 + q.endLine - q.startLine + 1 - overlap);
                }),
            ),
          )
          .filter((score) => score > 0);
        const tightness = spanTightness(spanOverlap(predicted, gold));
        if (scores.length === 0) expect(tightness).toBeUndefined();
        else expect(tightness).toBeCloseTo(scores.reduce((a, b) => a + b, 0) / scores.length, 12);
      }),
      { numRuns: 300 },
    );
    expect(() => overlapWithGoldLineSet([span("a.py", 4, 2)], lineSetOf([]))).toThrow("invalid span a.py:4-2");
  });

  it("lines past a file's end are clipped away when its length is known", () => {
    fc.assert(
      fc.property(arbSpans, arbSpans, fc.integer({ min: 1, max: 400 }), (predicted, gold, length) => {
        const lineCounts = new Map(files.map((file) => [file, length]));
        const clippedGold = gold
          .filter((s) => s.startLine <= length)
          .map((s) => span(s.path, s.startLine, Math.min(s.endLine, length)));
        const clippedPredicted = predicted
          .filter((s) => s.startLine <= length)
          .map((s) => span(s.path, s.startLine, Math.min(s.endLine, length)));
        expectSameOverlap(spanOverlap(predicted, gold, { lineCounts }), spanOverlap(clippedPredicted, clippedGold));
        expect(lineCount(lineSetOf(predicted, { lineCounts }))).toBeLessThanOrEqual(files.length * length);
      }),
    );
  });
});
