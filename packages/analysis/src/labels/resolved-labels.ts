import type { ResolvedMatrix } from "@loclab/statistics";
import { z } from "zod";

/**
 * The kinds of file that say which tasks a run resolved, most specific first (that is the
 * order in which they decide a task when several are present):
 * - `instance-report`: the SWE-bench harness's per-instance `logs/…/<instance_id>/report.json`
 *   (`{"<id>": {"resolved": true, …}}`, or the bare inner object, the id then being the folder);
 * - `run-report`: the harness's (or sb-cli's) run report `<model>.<run_id>.json` with
 *   `resolved_ids`;
 * - `results`: SWE-bench experiments' `results.json` / AutoCodeRover's `report.json` /
 *   SWE-agent's `final_report.json`: a `resolved` list of ids;
 * - `run-summary`: a summary with `instances: [{instance_id, resolved}]` (mini-swe-agent's
 *   results_summary.json);
 * - `resolved-matrix`: one column of a resolved-matrix CSV (parseResolvedMatrix).
 */
export type ResolvedLabelKind = "instance-report" | "run-report" | "results" | "run-summary" | "resolved-matrix";

/** Precedence of the kinds: lower decides first. */
export const RESOLVED_LABEL_PRECEDENCE: readonly ResolvedLabelKind[] = [
  "instance-report",
  "run-report",
  "results",
  "run-summary",
  "resolved-matrix",
];

/** One label file, read. */
export interface ResolvedLabelSource {
  kind: ResolvedLabelKind;
  /** The file (and column) it came from. */
  source: string;
  resolved: ReadonlySet<string>;
  /**
   * The tasks it decides: "all" for run-wide lists (an id not listed is not resolved: not
   * generated, not applied, or failed), else the ids it names.
   */
  covers: ReadonlySet<string> | "all";
}

/** A run's labels: its sources, most specific first. */
export interface ResolvedLabels {
  sources: ResolvedLabelSource[];
}

const Ids = z.array(z.string());
const InstanceReportInner = z.looseObject({ resolved: z.boolean(), infra_failure: z.boolean().optional() });
const RunReportSchema = z.looseObject({
  resolved_ids: Ids,
  completed_ids: Ids.nullish(),
  submitted_ids: Ids.nullish(),
  unresolved_ids: Ids.nullish(),
  empty_patch_ids: Ids.nullish(),
  incomplete_ids: Ids.nullish(),
  // loclab's evaluation summary: the instances whose run failed for infrastructure reasons.
  infra_failures: z.record(z.string(), z.unknown()).nullish(),
});
const ResultsSchema = z.looseObject({ resolved: Ids });
const RunSummarySchema = z.looseObject({
  instances: z.array(z.looseObject({ instance_id: z.string(), resolved: z.boolean() })),
});
const NestedInstanceReportSchema = z.record(z.string(), InstanceReportInner);

/**
 * Reads one parsed JSON file as a label source, by its shape (not its name); undefined when it
 * is none of the known shapes. `instanceId` is the id a bare per-instance report.json stands
 * for (its folder's name); without it a bare report is not recognised.
 *
 * @example resolvedLabelSourceFromJson({ resolved: ["a__a-1"] }, { source: "report.json" })
 *          // { kind: "results", source: "report.json", resolved: Set {"a__a-1"}, covers: "all" }
 */
export function resolvedLabelSourceFromJson(
  json: unknown,
  options: { source: string; instanceId?: string },
): ResolvedLabelSource | undefined {
  const { source } = options;
  const runReport = RunReportSchema.safeParse(json);
  if (runReport.success) {
    const report = runReport.data;
    // A loclab evaluation summary decides every task but those whose run failed for
    // infrastructure reasons: they are unknown, not unresolved.
    if (report.infra_failures) {
      const decided = [
        ...report.resolved_ids,
        ...(report.unresolved_ids ?? []),
        ...(report.empty_patch_ids ?? []),
        ...(report.incomplete_ids ?? []),
      ];
      return { kind: "run-report", source, resolved: new Set(report.resolved_ids), covers: new Set(decided) };
    }
    return { kind: "run-report", source, resolved: new Set(report.resolved_ids), covers: "all" };
  }
  const results = ResultsSchema.safeParse(json);
  if (results.success) return { kind: "results", source, resolved: new Set(results.data.resolved), covers: "all" };
  const summary = RunSummarySchema.safeParse(json);
  if (summary.success) {
    const instances = summary.data.instances;
    return {
      kind: "run-summary",
      source,
      resolved: new Set(instances.filter((i) => i.resolved).map((i) => i.instance_id)),
      covers: new Set(instances.map((i) => i.instance_id)),
    };
  }
  const bare = InstanceReportInner.safeParse(json);
  if (bare.success && options.instanceId) {
    const id = options.instanceId;
    return {
      kind: "instance-report",
      source,
      resolved: new Set(bare.data.resolved ? [id] : []),
      covers: new Set(bare.data.infra_failure ? [] : [id]),
    };
  }
  if (!bare.success) {
    const nested = NestedInstanceReportSchema.safeParse(json);
    if (
      nested.success &&
      Object.keys(nested.data).length > 0 &&
      Object.keys(nested.data).every((id) => id.includes("__"))
    ) {
      const entries = Object.entries(nested.data);
      // An instance whose run failed for infrastructure reasons (loclab's and the 5.x harness's
      // `infra_failure`) is not decided by its report.
      return {
        kind: "instance-report",
        source,
        resolved: new Set(entries.filter(([, r]) => r.resolved).map(([id]) => id)),
        covers: new Set(entries.filter(([, r]) => !r.infra_failure).map(([id]) => id)),
      };
    }
  }
  return undefined;
}

/**
 * One system's column of a resolved matrix as a label source (covers the matrix's ids).
 *
 * Errors: the column is not in the matrix.
 */
export function resolvedLabelSourceFromMatrix(
  matrix: ResolvedMatrix,
  options: { column: string; source: string },
): ResolvedLabelSource {
  const s = matrix.systems.indexOf(options.column);
  if (s < 0)
    throw new Error(
      `${options.source}: no column ${JSON.stringify(options.column)} (columns: ${matrix.systems.join(", ")})`,
    );
  const outcomes = matrix.outcomes[s] as Uint8Array;
  return {
    kind: "resolved-matrix",
    source: `${options.source}#${options.column}`,
    resolved: new Set(matrix.instanceIds.filter((_, i) => outcomes[i] === 1)),
    covers: new Set(matrix.instanceIds),
  };
}

/** Merges label sources: many per-instance reports become one source; the rest are kept, all sorted by precedence. */
export function combineResolvedLabels(sources: readonly ResolvedLabelSource[]): ResolvedLabels {
  const perInstance = sources.filter((s) => s.kind === "instance-report");
  const others = sources.filter((s) => s.kind !== "instance-report");
  const merged: ResolvedLabelSource[] = [];
  if (perInstance.length > 0) {
    const resolved = new Set<string>();
    const covers = new Set<string>();
    for (const s of perInstance) {
      for (const id of s.resolved) resolved.add(id);
      if (s.covers !== "all") for (const id of s.covers) covers.add(id);
    }
    const first = perInstance[0] as ResolvedLabelSource;
    merged.push({
      kind: "instance-report",
      source:
        perInstance.length === 1
          ? first.source
          : `${perInstance.length} per-instance report.json files (e.g. ${first.source})`,
      resolved,
      covers,
    });
  }
  merged.push(...others);
  const rank = (kind: ResolvedLabelKind) => RESOLVED_LABEL_PRECEDENCE.indexOf(kind);
  merged.sort((a, b) => rank(a.kind) - rank(b.kind));
  return { sources: merged };
}

/** Whether the run resolved a task: the first source (by precedence) that covers it decides; undefined when none does. */
export function resolvedOf(labels: ResolvedLabels, instanceId: string): boolean | undefined {
  for (const source of labels.sources) {
    if (source.covers === "all" || source.covers.has(instanceId)) return source.resolved.has(instanceId);
  }
  return undefined;
}

/** A task two label sources of one run disagree on. */
export interface LabelDisagreement {
  instanceId: string;
  resolvedIn: string[];
  unresolvedIn: string[];
}

/** The tasks (of `instanceIds`) on which a run's label sources disagree, for a warning. */
export function labelDisagreements(labels: ResolvedLabels, instanceIds: Iterable<string>): LabelDisagreement[] {
  const found: LabelDisagreement[] = [];
  for (const id of instanceIds) {
    const resolvedIn: string[] = [];
    const unresolvedIn: string[] = [];
    for (const source of labels.sources) {
      if (source.covers !== "all" && !source.covers.has(id)) continue;
      (source.resolved.has(id) ? resolvedIn : unresolvedIn).push(source.source);
    }
    if (resolvedIn.length > 0 && unresolvedIn.length > 0) found.push({ instanceId: id, resolvedIn, unresolvedIn });
  }
  return found;
}
