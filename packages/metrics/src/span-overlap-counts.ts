/**
 * The raw counts behind the span metrics of one instance (docs/definitions.md §3, span level), kept
 * so that micro (pooled) forms can be summed across instances.
 */
export interface SpanOverlap {
  /** |L(G)| */
  goldLines: number;
  /** |L(P)| */
  predictedLines: number;
  /** |L(P) ∩ L(G)| */
  overlapLines: number;
  /** Σ over overlapped gold intervals of the best IoU with one predicted interval. */
  tightnessSum: number;
  /** Number of gold intervals some predicted interval overlaps. */
  tightnessCount: number;
}
