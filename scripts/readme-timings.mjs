// Rewrites the README's one line of how long the two commands take, from the output of a run
// of each on a fresh clone (each prints "npm run reproduce took N s" / "npm test took N s"):
//   npm run reproduce > reproduce.log; npm test > test.log
//   node scripts/readme-timings.mjs reproduce.log test.log
// The line sits between <!-- timings --> and <!-- /timings --> in README.md; the dated history
// of such figures is in CHANGELOG.md.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./lib/run.mjs";

const [reproduceLog, testLog] = process.argv.slice(2);
if (!reproduceLog || !testLog) {
  process.stderr.write("usage: node scripts/readme-timings.mjs REPRODUCE_LOG TEST_LOG\n");
  process.exit(2);
}
function seconds(file, pattern) {
  const match = pattern.exec(readFileSync(file, "utf8"));
  if (!match) throw new Error(`${file}: no line matching ${pattern}`);
  return Number(match[1]);
}
const reproduce = seconds(reproduceLog, /^npm run reproduce took (\d+) s$/m);
const test = seconds(testLog, /^npm test took (\d+) s$/m);
const total = /^total: (\d+) passed, (\d+) failed$/m.exec(readFileSync(testLog, "utf8"));
const minutes = (value) => Math.max(1, Math.round(value / 60));
const line =
  `On a 2-core machine, \`npm run reproduce\` takes about ${minutes(reproduce)} minutes on a fresh clone once \`npm ci && npm run build\` has run ` +
  `and \`npm test\` about ${minutes(test)} minutes${total ? ` (${total[1]} checks)` : ""}.`;
const readme = join(repoRoot, "README.md");
const text = readFileSync(readme, "utf8");
const updated = text.replace(
  /<!-- timings -->[\s\S]*?<!-- \/timings -->/,
  `<!-- timings -->\n${line}\n<!-- /timings -->`,
);
if (updated === text && !text.includes(line))
  throw new Error("README.md has no <!-- timings --> … <!-- /timings --> block");
writeFileSync(readme, updated);
process.stdout.write(`${line}\n`);
