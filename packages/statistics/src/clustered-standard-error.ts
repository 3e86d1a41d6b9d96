import { mean, sum } from "simple-statistics";
import { clusterOfInstanceId } from "./cluster-of-instance-id.js";

/** A mean with its cluster-robust standard error. */
export interface ClusteredStandardError {
  /** s̄, the mean of the values. */
  mean: number;
  /** SE = (1/n)·√(C/(C−1)·Σ_c (Σ_{i∈c}(s_i − s̄))²). */
  standardError: number;
  /** Number of values. */
  n: number;
  /** C, the number of distinct clusters. */
  clusterCount: number;
}

/**
 * Cluster-robust (CR1 / Liang–Zeger sandwich) standard error of a mean, docs/definitions.md §7:
 *
 *   SE = (1/n) · √( C/(C−1) · Σ_c ( Σ_{i∈c} (s_i − s̄) )² )
 *
 * over n per-instance scores s_i in C clusters (repositories). With one instance per cluster
 * (C = n) it is the textbook sample standard deviation / √n; outcomes that move together within
 * a repository make it larger. Cluster labels come from `clusters` (one per value) or, by
 * default, from `instanceIds` through clusterOfInstanceId ("django__django-11099" →
 * "django__django").
 *
 * The mean and the per-cluster residual sums use simple-statistics' mean and sum (compensated
 * summation). Reference: K.-Y. Liang & S. L. Zeger (1986), Biometrika 73:13–22; A. C. Cameron
 * & D. L. Miller (2015), "A practitioner's guide to cluster-robust inference", JHR 50:317–372.
 * Errors: no values; a length mismatch; neither labels nor ids; fewer than 2 clusters (the
 * C/(C−1) factor is undefined); a non-finite value.
 * Cost: O(n).
 *
 * @example clusteredStandardError({ values: [1, 0, 1, 1], clusters: ["a", "a", "b", "c"] })
 *          // { mean: 0.75, standardError: 0.1875, n: 4, clusterCount: 3 }
 */
export function clusteredStandardError(options: {
  values: ArrayLike<number>;
  clusters?: readonly string[];
  instanceIds?: readonly string[];
}): ClusteredStandardError {
  const values = Array.from(options.values);
  const n = values.length;
  if (n === 0) throw new RangeError("clusteredStandardError requires at least one value");
  values.forEach((value, i) => {
    if (!Number.isFinite(value))
      throw new RangeError(`clusteredStandardError requires finite values, got ${value} at index ${i}`);
  });
  let labels: readonly string[];
  if (options.clusters) labels = options.clusters;
  else if (options.instanceIds) labels = options.instanceIds.map(clusterOfInstanceId);
  else throw new Error("clusteredStandardError requires clusters or instanceIds");
  const labelName = options.clusters ? "clusters" : "instanceIds";
  if (labels.length !== n)
    throw new RangeError(
      `clusteredStandardError requires ${labelName} to have one entry per value: ${labels.length} for ${n} values`,
    );
  const average = mean(values);
  const residuals = new Map<string, number[]>();
  labels.forEach((label, i) => {
    const list = residuals.get(label);
    const residual = (values[i] as number) - average;
    if (list) list.push(residual);
    else residuals.set(label, [residual]);
  });
  const C = residuals.size;
  if (C < 2) throw new RangeError(`clusteredStandardError requires at least 2 clusters, got ${C}`);
  const squares = [...residuals.values()].map((list) => sum(list) ** 2);
  const standardError = Math.sqrt((C / (C - 1)) * sum(squares)) / n;
  return { mean: average, standardError, n, clusterCount: C };
}
