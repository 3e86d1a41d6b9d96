import { progress } from "../progress.js";
import { printTable } from "../table.js";

const percent = (rate: number | null) => (rate === null ? "" : `${(rate * 100).toFixed(1)} %`);
const signed = (value: number | null, digits = 1) =>
  value === null ? "" : `${value > 0 ? "+" : ""}${value.toFixed(digits)}`;

/**
 * `loclab run transfer DIR`: SHERLOC's transfer analysis of a repair run folder, per control:
 * each arm against the baseline (resolve-rate difference, its repository-clustered bootstrap
 * interval, exact McNemar, tokens in SHERLOC's split), the findings arm's quality bins and the
 * judge's threshold swept; written under the run's results/.
 */
export async function printTransfer(
  dir: string,
  options: { baseline?: string; findings?: string; judged?: string; resamples: number; json: boolean },
): Promise<void> {
  const { writeTransferReport } = await import("@loclab/repair");
  const arms = {
    ...(options.baseline ? { baseline: options.baseline } : {}),
    ...(options.findings ? { findings: options.findings } : {}),
    ...(options.judged ? { judged: options.judged } : {}),
  };
  const { reports, written } = await writeTransferReport(dir, { ...arms, resamples: options.resamples });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(reports)}\n`);
    return;
  }
  const write = (line = "") => process.stdout.write(`${line}\n`);
  for (const report of reports) {
    write(
      `control ${report.control}: each arm against the baseline (${report.baseline}), paired on task × seed × framework`,
    );
    printTable(
      report.arms.map((row) => ({
        arm: row.arm,
        framework: row.framework,
        n: row.n,
        arm_rate: percent(row.armRate),
        baseline_rate: percent(row.baselineRate),
        diff_pp: signed(row.differencePoints),
        interval_pp: `[${signed(row.interval.lower)}, ${signed(row.interval.upper)}]`,
        b: row.baselineOnly,
        c: row.armOnly,
        p: row.p.toFixed(4),
        injected: row.injected ?? "",
        loc_tokens:
          row.tokens.localization.relativeChangePercent === null
            ? ""
            : `${signed(row.tokens.localization.relativeChangePercent)} %`,
        total_tokens:
          row.tokens.total.relativeChangePercent === null ? "" : `${signed(row.tokens.total.relativeChangePercent)} %`,
      })),
    );
    if (report.bins.length > 0) {
      write();
      write("the findings arm's injected tasks by the judge's composite, against the baseline on the same tasks:");
      printTable(
        report.bins.map((bin) => ({
          framework: bin.framework,
          composite: bin.bin,
          n: bin.n,
          injected_rate: percent(bin.armRate),
          baseline_rate: percent(bin.baselineRate),
        })),
      );
    }
    if (report.sweep.length > 0) {
      write();
      write("the judged arm at each threshold, rebuilt from the findings arm, the baseline and the stored judgements:");
      printTable(
        report.sweep.map((point) => ({
          framework: point.framework,
          threshold: point.threshold.toFixed(2),
          injected: percent(point.injectedShare),
          judged_rate: percent(point.judgedRate),
          baseline_rate: percent(point.baselineRate),
          diff_pp: signed(point.differencePoints),
          p: point.p.toFixed(4),
        })),
      );
    }
    if (report.judgedCheck) {
      const { threshold, ran, sweep } = report.judgedCheck;
      write();
      write(
        `the judged arm as run at ${threshold}: ${percent(ran.armRate)} (b ${ran.baselineOnly}, c ${ran.armOnly}); the sweep at ${threshold}: ${percent(sweep.judgedRate)} (b ${sweep.baselineOnly}, c ${sweep.judgedOnly})`,
      );
    }
    write();
  }
  progress(`written under ${dir}: ${written.join(", ")}`);
}
