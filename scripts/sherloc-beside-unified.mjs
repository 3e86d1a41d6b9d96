#!/usr/bin/env node
// The 16 bundled localization outputs (../shared/data/localization) scored under the unified
// preset and under SHERLOC's evaluator (the `sherloc` preset), side by side: how far apart
// loclab's file.acc@1 (the top-ranked file) and SHERLOC's file recall (every predicted file)
// are on the same predictions. Prints a Markdown table; `--json` prints the rows.
//
//   npm run build && node scripts/sherloc-beside-unified.mjs [--data-dir DIR] [--json]
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { listPeerOutputs, scorePredictionsFile } from "@loclab/scoring";

const args = process.argv.slice(2);
const dataDirIndex = args.indexOf("--data-dir");
const dataDir = resolveDataDir(dataDirIndex >= 0 ? { dataDir: args[dataDirIndex + 1] } : {});
const pct = (value) => (value === undefined || Number.isNaN(value) ? "" : (100 * value).toFixed(2));
const rows = [];
for (const { file, format, benchmark } of listPeerOutputs({ dataDir })) {
  const predictions = join(dataDir, file);
  const score = (preset) => scorePredictionsFile({ benchmark, predictions, format, preset, dataDir });
  const [unified, sherloc] = [await score("unified"), await score("sherloc")];
  const u = unified.report.metrics;
  const s = sherloc.report.metrics;
  const files = (await import("@loclab/predictions")).readPredictions;
  const read = await files(predictions, { format });
  const meanFiles = read.predictions.reduce((sum, p) => sum + p.files.length, 0) / Math.max(1, read.predictions.length);
  rows.push({
    output: file.replace(/^localization\//, ""),
    benchmark,
    "files per answer": meanFiles.toFixed(2),
    "n unified": unified.report.n,
    "n sherloc": sherloc.report.n,
    "file.acc@1": pct(u["file.acc@1"]?.value),
    "file.recall@10": pct(u["file.recall@10"]?.value),
    "sherloc.file_recall": pct(s["sherloc.file_recall"]?.value),
    "recall − acc@1": (100 * ((s["sherloc.file_recall"]?.value ?? 0) - (u["file.acc@1"]?.value ?? 0))).toFixed(2),
    "sherloc.file_precision": pct(s["sherloc.file_precision"]?.value),
    "sherloc.file_exact_match": pct(s["sherloc.file_exact_match"]?.value),
  });
  process.stderr.write(`scored ${file}\n`);
}
if (args.includes("--json")) {
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
} else {
  const keys = Object.keys(rows[0]);
  process.stdout.write(`|${keys.join("|")}|\n|${keys.map(() => "-").join("|")}|\n`);
  for (const row of rows) process.stdout.write(`|${keys.map((key) => row[key]).join("|")}|\n`);
}
