import { join } from "node:path";
import {
  type ArmVsBaseline,
  armVsBaseline,
  type QualityBin,
  qualityBins,
  type SweepPoint,
  thresholdSweep,
  type TransferObservation,
} from "@loclab/analysis";
import { lineChart, barChart, writeChart } from "@loclab/charts";
import { toCsv } from "@loclab/runner";
import { controlLabel, isFinalOutcome, readRunFolder, type RunRecord, writeFileAtomic } from "@loclab/schemas";

/** The arms the transfer report reads, by their run-spec names. */
export interface TransferArms {
  /** The arm without a hand-off (default `single`, the transfer's baseline). */
  baseline?: string;
  /** The arm always handed the finding (default `findings`): the quality bins and the sweep read it. */
  findings?: string;
  /** The arm filtered by the judge (default `judged`): checked against the sweep at its threshold. */
  judged?: string;
}

/** A repair run's attempts as the transfer analysis reads them, one set per control. */
export interface TransferObservations {
  /** By control label (`plain`, `masked:modules`, …). */
  byControl: Map<string, TransferObservation[]>;
  /** The judged arm's threshold as recorded (null when no judged attempt was judged). */
  threshold: number | null;
}

/**
 * The transfer observations of a repair run folder (docs/definitions.md §9): one per final
 * evaluated attempt, its tokens in SHERLOC's split. Localization tokens are the fixer's before
 * its first edit plus the localizer stage's; total tokens the fixer's (and a localizer
 * sub-agent's) plus the stage's. The stage's tokens count in every arm that used its
 * prediction, since each arm, run alone, would have spent them (the ledger counts them once,
 * where they were spent). An attempt with no evaluation (`failed`, or still open) is left out.
 */
export async function transferObservations(dir: string): Promise<TransferObservations> {
  const folder = await readRunFolder(dir);
  const finals = new Map<string, RunRecord>();
  for (const record of folder.records)
    if (isFinalOutcome(record.outcome) && record.repair) finals.set(record.key, record);
  const byControl = new Map<string, TransferObservation[]>();
  let threshold: number | null = null;
  for (const record of finals.values()) {
    const repair = record.repair!;
    const handOff = repair.handOff;
    const stage = handOff?.localization?.usage.totalTokens ?? 0;
    const judgement = handOff?.judgement;
    if (judgement && record.arm === "judged") threshold = judgement.threshold;
    const observation: TransferObservation = {
      instanceId: record.instanceId,
      seed: record.seed,
      arm: record.arm ?? "single",
      framework: record.framework ?? "loclab",
      resolved: repair.resolved,
      tokens: {
        localization: (repair.phases.beforeFirstEdit.totalTokens ?? 0) + stage,
        total: (repair.agents.fixer.totalTokens ?? 0) + (repair.agents.localizer.totalTokens ?? 0) + stage,
      },
      ...(judgement?.status === "judged" && judgement.composite !== undefined
        ? { composite: judgement.composite }
        : {}),
      injected: handOff ? (handOff.injected ?? true) : false,
    };
    const control = controlLabel(record.control);
    byControl.set(control, [...(byControl.get(control) ?? []), observation]);
  }
  return { byControl, threshold };
}

/** The transfer analysis of one control's observations, per framework and pooled. */
export interface TransferReport {
  control: string;
  baseline: string;
  frameworks: string[];
  /** Every other arm against the baseline, per framework and pooled. */
  arms: ArmVsBaseline[];
  /** The findings arm's injected tasks by the judge's composite, against the baseline on the same tasks. */
  bins: (QualityBin & { arm: string; framework: string })[];
  /** The judged arm rebuilt at every threshold from 1 to 5 from the findings arm, the baseline and the judgements. */
  sweep: (SweepPoint & { framework: string })[];
  /** The judged arm as run, against the sweep at its threshold (they agree when the fixer is deterministic). */
  judgedCheck: { threshold: number; framework: string; ran: ArmVsBaseline; sweep: SweepPoint } | null;
}

/**
 * The transfer analysis of a control's observations (pure; docs/definitions.md §9): each arm
 * against the baseline with the exact McNemar test and the repository-clustered paired
 * bootstrap; the quality bins and the threshold sweep from the findings arm; per framework and
 * pooled over frameworks.
 */
export function transferReport(
  observations: readonly TransferObservation[],
  options: TransferArms & { control: string; threshold?: number | null; resamples?: number; seed?: number },
): TransferReport {
  const baseline = options.baseline ?? "single";
  const findings = options.findings ?? "findings";
  const judged = options.judged ?? "judged";
  const frameworks = [...new Set(observations.map((o) => o.framework ?? "loclab"))].sort();
  const scopes: (string | undefined)[] = frameworks.length > 1 ? [...frameworks, undefined] : [undefined];
  const armsRun = [...new Set(observations.map((o) => o.arm))].filter((arm) => arm !== baseline);
  if (!observations.some((o) => o.arm === baseline))
    throw new Error(
      `no attempt of the baseline arm ${baseline} under ${options.control} (arms: ${[...new Set(observations.map((o) => o.arm))].join(", ")})`,
    );
  const bootstrap = { resamples: options.resamples ?? 10_000, seed: options.seed ?? 1 };
  const scoped = (framework: string | undefined) => (framework !== undefined ? { framework } : {});
  const arms = scopes.flatMap((framework) =>
    armsRun.map((arm) => armVsBaseline(observations, { arm, baseline, ...scoped(framework), ...bootstrap })),
  );
  const judgedFindings = observations.some((o) => o.arm === findings && o.composite !== undefined);
  const bins = judgedFindings
    ? scopes.flatMap((framework) =>
        qualityBins(observations, { arm: findings, baseline, ...scoped(framework) }).map((bin) => ({
          ...bin,
          arm: findings,
          framework: framework ?? "pooled",
        })),
      )
    : [];
  const sweep = judgedFindings
    ? scopes.flatMap((framework) =>
        thresholdSweep(observations, { findingsArm: findings, baseline, ...scoped(framework) }).map((point) => ({
          ...point,
          framework: framework ?? "pooled",
        })),
      )
    : [];
  const threshold = options.threshold ?? null;
  const ran = arms.find((row) => row.arm === judged && row.framework === "pooled");
  const atThreshold = sweep.find((point) => point.framework === "pooled" && point.threshold === threshold);
  const judgedCheck =
    threshold !== null && ran && judgedFindings
      ? {
          threshold,
          framework: "pooled",
          ran,
          sweep:
            atThreshold ??
            thresholdSweep(observations, { findingsArm: findings, baseline, thresholds: [threshold] })[0]!,
        }
      : null;
  return { control: options.control, baseline, frameworks, arms, bins, sweep, judgedCheck };
}

/** What `writeTransferReport` wrote. */
export interface WrittenTransferReport {
  reports: TransferReport[];
  written: string[];
}

/**
 * The transfer analysis of a repair run folder, per control, written under its results/:
 * `transfer.json` (everything), `transfer-arms.csv`, `transfer-bins.csv`, `transfer-sweep.csv`,
 * and the charts `transfer-arms`, `transfer-bins`, `transfer-sweep` (svg and the vega-lite json).
 */
export async function writeTransferReport(
  dir: string,
  options: TransferArms & { resamples?: number; seed?: number } = {},
): Promise<WrittenTransferReport> {
  const { byControl, threshold } = await transferObservations(dir);
  if (byControl.size === 0) throw new Error(`${dir}: no evaluated repair attempt yet`);
  const reports = [...byControl].map(([control, observations]) =>
    transferReport(observations, { ...options, control, threshold }),
  );
  const results = join(dir, "results");
  const written: string[] = [];
  const write = async (name: string, text: string) => {
    const path = join(results, name);
    await writeFileAtomic(path, text);
    written.push(path);
  };
  await write("transfer.json", `${JSON.stringify(reports, null, 2)}\n`);
  const armRows = reports.flatMap((report) => report.arms.map((row) => armRow(report.control, row)));
  const binRows = reports.flatMap((report) => report.bins.map((bin) => ({ control: report.control, ...bin })));
  const sweepRows = reports.flatMap((report) => report.sweep.map((point) => ({ control: report.control, ...point })));
  await write("transfer-arms.csv", toCsv(armRows));
  if (binRows.length > 0) await write("transfer-bins.csv", toCsv(binRows));
  if (sweepRows.length > 0) await write("transfer-sweep.csv", toCsv(sweepRows));
  const chart = async (spec: Parameters<typeof writeChart>[0], name: string) =>
    written.push(...(await writeChart(spec, join(results, name), { formats: ["svg", "json"] })));
  await chart(
    barChart({
      data: armRows.map((row) => ({ ...row, label: `${row.arm} (${row.control}, ${row.framework})` })),
      x: { field: "label", title: "arm" },
      y: { field: "differencePoints", title: "resolve rate − baseline (points)" },
      horizontal: true,
      title: "transfer: each arm against the baseline",
      width: 420,
    }),
    "transfer-arms",
  );
  if (binRows.length > 0)
    await chart(
      lineChart({
        data: binRows.flatMap((bin) => [
          ...(bin.armRate !== null
            ? [
                {
                  bin: bin.bin,
                  rate: bin.armRate,
                  series: `${bin.arm} (injected)`,
                  scope: `${bin.control}, ${bin.framework}`,
                },
              ]
            : []),
          ...(bin.baselineRate !== null
            ? [
                {
                  bin: bin.bin,
                  rate: bin.baselineRate,
                  series: "baseline, same tasks",
                  scope: `${bin.control}, ${bin.framework}`,
                },
              ]
            : []),
        ]),
        x: { field: "bin", title: "judge's composite", type: "ordinal" },
        y: { field: "rate", title: "resolve rate" },
        color: { field: "series", title: "" },
        column: { field: "scope", title: "" },
        yDomain: [0, 1],
        title: "transfer: resolve rate by the finding's quality",
      }),
      "transfer-bins",
    );
  if (sweepRows.length > 0)
    await chart(
      lineChart({
        data: sweepRows.flatMap((point) => [
          {
            threshold: point.threshold,
            value: point.differencePoints,
            measure: "judged − baseline (points)",
            scope: `${point.control}, ${point.framework}`,
          },
          {
            threshold: point.threshold,
            value: point.injectedShare * 100,
            measure: "injected (% of tasks)",
            scope: `${point.control}, ${point.framework}`,
          },
        ]),
        x: { field: "threshold", title: "threshold" },
        y: { field: "value", title: "" },
        color: { field: "measure", title: "" },
        column: { field: "scope", title: "" },
        title: "transfer: the judge's threshold swept",
      }),
      "transfer-sweep",
    );
  return { reports, written };
}

/** One row of transfer-arms.csv. */
function armRow(control: string, row: ArmVsBaseline) {
  return {
    control,
    arm: row.arm,
    baseline: row.baseline,
    framework: row.framework,
    n: row.n,
    armRate: row.armRate,
    baselineRate: row.baselineRate,
    differencePoints: row.differencePoints,
    lower: row.interval.lower,
    upper: row.interval.upper,
    baselineOnly: row.baselineOnly,
    armOnly: row.armOnly,
    p: row.p,
    injected: row.injected,
    localizationTokensChangePercent: row.tokens.localization.relativeChangePercent,
    totalTokensChangePercent: row.tokens.total.relativeChangePercent,
  };
}
