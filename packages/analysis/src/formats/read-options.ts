/** Options every trajectory reader takes. */
export interface TrajectoryReadOptions {
  /** JSON files up to this size are parsed whole, larger ones streamed (default 16 MiB). */
  maxWholeFileBytes?: number;
}
