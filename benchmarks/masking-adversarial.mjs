// Benchmark: path masking (docs/definitions.md §4) on adversarial issue texts (issue 12, item 8).
// `maskIssuePaths` at the default level over texts built to defeat backtracking (one letter
// repeated, runs ending in "://", dotted runs, slash runs), and the real issue texts of
// SWE-bench Lite, next to the regular expression the URL finder used to be
// (/[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>"'`]+/g), timed on growing prefixes of the worst text to
// show its growth. Figures are printed and written to results/bench-masking-adversarial.json;
// nothing is asserted.
//
//   node benchmarks/masking-adversarial.mjs   (after npm run build)
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { maskIssuePaths } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const KB = 1024;
const time = (fn) => {
  const started = performance.now();
  fn();
  return performance.now() - started;
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const knownFiles = ["django/db/models/query.py", "django/contrib/admin/options.py", "setup.py", "docs/index.rst"];

const texts = {
  "one letter, 512 KB": "a".repeat(512 * KB),
  "one letter then ://, 512 KB": `${"a".repeat(512 * KB)}://host/django/db/models/query.py`,
  "a.b.c… dotted run, 512 KB": "a.".repeat(256 * KB),
  "a/b/… slash run, 512 KB": "a/".repeat(256 * KB),
  "x://x:// repeated, 512 KB": "x://".repeat(128 * KB),
};
const rows = [];
for (const [name, text] of Object.entries(texts)) {
  const ms = median([0, 1, 2].map(() => time(() => maskIssuePaths(text, { knownFiles }))));
  rows.push({
    text: name,
    chars: text.length,
    maskMs: Number(ms.toFixed(1)),
    mbPerSecond: Number((text.length / 1e6 / (ms / 1000)).toFixed(1)),
  });
}
const { instances } = await loadBenchmark("lite");
const real = instances.map((instance) => instance.problem_statement);
const realMs = median([0, 1, 2].map(() => time(() => real.forEach((text) => maskIssuePaths(text, { knownFiles })))));
const realChars = real.reduce((n, text) => n + text.length, 0);
rows.push({
  text: "all 300 Lite issues, one by one",
  chars: realChars,
  maskMs: Number(realMs.toFixed(1)),
  mbPerSecond: Number((realChars / 1e6 / (realMs / 1000)).toFixed(1)),
});

// The old URL pattern on growing prefixes of the worst text: quadratic growth.
const OLD_URL = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>"'`]+/g;
const growth = [];
for (const size of [8, 16, 32, 64]) {
  const text = "a".repeat(size * KB);
  const oldMs = median([0, 1, 2].map(() => time(() => [...text.matchAll(OLD_URL)])));
  const newMs = median([0, 1, 2].map(() => time(() => maskIssuePaths(text, { knownFiles }))));
  growth.push({
    kb: size,
    oldRegexMs: Number(oldMs.toFixed(1)),
    maskIssuePathsMs: Number(newMs.toFixed(2)),
    ratio: Number((oldMs / Math.max(newMs, 0.01)).toFixed(0)),
  });
}
console.table(rows);
console.table(growth);
mkdirSync(join(root, "results"), { recursive: true });
writeFileSync(
  join(root, "results", "bench-masking-adversarial.json"),
  `${JSON.stringify({ rows, oldRegexGrowth: growth }, null, 2)}\n`,
);
console.log("wrote results/bench-masking-adversarial.json");
