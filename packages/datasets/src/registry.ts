/**
 * The benchmarks bundled in ../shared/data (see its README for provenance), by short name.
 * `expected` is the published row count; a loaded file that differs is reported, because a
 * truncated copy would otherwise shift every metric silently.
 */
export const BENCHMARKS = {
  lite: { file: "swebench/lite.jsonl", expected: 300, title: "SWE-bench Lite (test)" },
  verified: { file: "swebench/verified.jsonl", expected: 500, title: "SWE-bench Verified" },
  locbench: { file: "locbench/locbench-v1.jsonl", expected: 560, title: "Loc-Bench V1" },
} as const;

export type BenchmarkName = keyof typeof BENCHMARKS;

export function isBenchmarkName(name: string): name is BenchmarkName {
  return Object.hasOwn(BENCHMARKS, name);
}
