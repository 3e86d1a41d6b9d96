import { type RunScore, SHERLOC_TABLE_METRICS } from "./score-run.js";

/**
 * Per control: loclab's file.acc@1 (the top-ranked file) beside SHERLOC's file recall (every
 * predicted file) and chunk scores, and how far apart the first two are on the same predictions.
 */
export function besideSherlocRows(score: RunScore): Record<string, string>[] {
  const controls = [...new Set(score.acrossSeeds.map((row) => row.control))];
  const formatted = (control: string, metric: string) =>
    score.acrossSeeds.find((row) => row.control === control && row.metric === metric)?.formatted ?? "";
  return controls.map((control) => {
    const cells = score.cells.filter((cell) => cell.control === control);
    const gaps = cells.flatMap((cell) => {
      const acc = cell.metrics["file.acc@1"];
      const recall = cell.metrics["sherloc.file_recall"];
      return acc === undefined || recall === undefined ? [] : [100 * (recall - acc)];
    });
    const gap = gaps.length === 0 ? "" : (gaps.reduce((sum, value) => sum + value, 0) / gaps.length).toFixed(2);
    return {
      control,
      "file.acc@1": formatted(control, "file.acc@1"),
      "sherloc.file_recall": formatted(control, "sherloc.file_recall"),
      "recall − acc@1": gap,
      ...Object.fromEntries(
        SHERLOC_TABLE_METRICS.filter((metric) => metric !== "sherloc.file_recall").map((metric) => [
          metric,
          formatted(control, metric),
        ]),
      ),
    };
  });
}
