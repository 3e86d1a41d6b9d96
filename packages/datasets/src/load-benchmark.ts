import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { type Instance, InstanceSchema, JsonlLineError, streamJsonl } from "@loclab/schemas";
import { resolveDataDir } from "./data-dir.js";
import { BENCHMARKS, isBenchmarkName } from "./registry.js";

export interface LoadBenchmarkOptions {
  /** The shared data folder; found automatically when omitted (see `resolveDataDir`). */
  dataDir?: string;
  /** `stop` (default) throws at the first bad line; `skip` keeps going and reports them. */
  onBadLine?: "stop" | "skip";
}

export interface LoadedBenchmark {
  /** Short name (`lite`) or the file's base name for a user file. */
  name: string;
  /** Absolute path of the file read. */
  path: string;
  instances: Instance[];
  /** Lines that could not be read, with file, line and reason (only with `onBadLine: "skip"`). */
  skipped: JsonlLineError[];
  /** The published row count of a bundled benchmark, when known. */
  expected?: number;
}

/**
 * Loads a benchmark: `lite` (300), `verified` (500), `locbench` (Loc-Bench V1, 560), or the
 * path of any JSONL file of SWE-bench-shaped rows. Every row is validated by `InstanceSchema`;
 * a bad row names the file and line. Duplicate instance ids are an error naming both lines,
 * since every later join is by id. A bundled benchmark whose row count differs from the
 * published one is an error too (a truncated copy would skew every figure).
 *
 * @example const { instances } = await loadBenchmark("lite");
 */
export async function loadBenchmark(spec: string, options: LoadBenchmarkOptions = {}): Promise<LoadedBenchmark> {
  const known = isBenchmarkName(spec) ? BENCHMARKS[spec] : undefined;
  const path = known ? join(resolveDataDir(options), known.file) : resolve(spec);
  if (!existsSync(path)) {
    throw new Error(
      known
        ? `benchmark ${spec}: ${path} is missing from the data folder`
        : `unknown benchmark ${JSON.stringify(spec)}: not one of ${Object.keys(BENCHMARKS).join(", ")} and no file at ${path}`,
    );
  }
  const skipped: JsonlLineError[] = [];
  const policy = options.onBadLine === "skip" ? { onBadLine: "skip" as const, skipped } : {};
  const instances: Instance[] = [];
  const firstLine = new Map<string, number>();
  for await (const { line, value } of streamJsonl(path, { ...policy, schema: InstanceSchema })) {
    const previous = firstLine.get(value.instance_id);
    if (previous !== undefined) {
      const duplicate = new JsonlLineError(
        path,
        line,
        `duplicate instance_id ${value.instance_id} (first on line ${previous})`,
      );
      if (options.onBadLine === "skip") {
        skipped.push(duplicate);
        continue;
      }
      throw duplicate;
    }
    firstLine.set(value.instance_id, line);
    instances.push(value);
  }
  if (instances.length === 0) {
    throw new Error(
      `benchmark ${spec}: ${path} has no instances${skipped.length > 0 ? ` (all ${skipped.length} line(s) were bad)` : " (the file is empty or blank)"}`,
    );
  }
  if (known && instances.length + skipped.length !== known.expected) {
    throw new Error(
      `benchmark ${spec}: ${path} has ${instances.length + skipped.length} rows, expected ${known.expected}`,
    );
  }
  return {
    name: known ? spec : basename(path).replace(/\.jsonl$/, ""),
    path,
    instances,
    skipped,
    ...(known ? { expected: known.expected } : {}),
  };
}
