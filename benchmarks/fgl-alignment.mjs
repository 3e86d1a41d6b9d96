// Added-line token alignment (issue 16, evidence): for the verified patch of each of the 41
// tasks the four real trajectory runs share, the fixer's prompt (issue + empty ctx + patch) is
// tokenized with the test model's tokenizer, each token's offset computed exactly as
// `loclab serve` computes `text_offset` (LlamaEngine.pieces), y+ selected by the scoring rule
// (a token counts when it starts inside an added line, `+` through newline), and the selected
// tokens' text compared with the added lines' text. Prints per-task counts and every line whose
// tokens do not reproduce it exactly, with the straddling token shown.
//
//   node benchmarks/fgl-alignment.mjs [--json results/fgl-alignment.json]
import { writeFileSync } from "node:fs";
import { readTrajectoryManifest } from "@loclab/analysis";
import { loadBenchmark, resolveDataDir } from "@loclab/datasets";
import { addedLineTokens, fixerPrompt } from "@loclab/fgl";
import { ensureTestModel, LlamaEngine } from "@loclab/serve";

const jsonOut = process.argv.includes("--json") ? process.argv[process.argv.indexOf("--json") + 1] : undefined;
const dataDir = resolveDataDir();
const ids = (await readTrajectoryManifest(dataDir)).core_instance_set.ids;
const lite = await loadBenchmark("lite");
const rows = new Map(lite.instances.map((row) => [row.instance_id, row]));
const model = await ensureTestModel();
const engine = await LlamaEngine.load({ modelPath: model.path, contextSize: 512 });

const tasks = [];
let lines = 0;
let exactLines = 0;
const straddles = [];
const started = performance.now();
for (const id of ids) {
  const row = rows.get(id);
  const prompt = fixerPrompt({ repo: row.repo, issue: row.problem_statement, context: "", patch: row.patch });
  const tokens = engine.tokenize(prompt.text, true);
  const pieces = engine.pieces(tokens);
  const shift = pieces.text.indexOf(prompt.text);
  if (shift < 0) throw new Error(`${id}: the detokenized prompt does not contain the prompt`);
  const end = (i) => (i + 1 < pieces.offsets.length ? pieces.offsets[i + 1] : pieces.text.length);
  const selected = addedLineTokens(pieces.offsets, prompt.added, { shift, promptEnd: prompt.text.length });
  // Per added line: the text of the tokens that start in it, against the line's own text.
  let exact = 0;
  for (const [a, b] of prompt.added) {
    const start = a + shift;
    const stop = b + shift;
    const mine = selected.indices.filter((i) => pieces.offsets[i] >= start && pieces.offsets[i] < stop);
    const text = mine.map((i) => pieces.text.slice(pieces.offsets[i], end(i))).join("");
    const want = prompt.text.slice(a, b);
    lines += 1;
    if (text === want) {
      exact += 1;
      exactLines += 1;
      continue;
    }
    const last = mine.at(-1);
    straddles.push({
      task: id,
      line: want,
      tokens: text,
      kind: text.startsWith(want) ? "runs past the newline" : "starts before the +",
      straddlingToken: last === undefined ? null : pieces.text.slice(pieces.offsets[last], end(last)),
    });
  }
  tasks.push({
    task: id,
    addedLines: prompt.added.length,
    addedTokens: selected.indices.length,
    exactLines: exact,
    startsBefore: selected.startsBefore,
    runsPast: selected.runsPast,
  });
}
const seconds = (performance.now() - started) / 1000;
console.log(`|task|added lines|y+ tokens|lines reproduced exactly|starts before|runs past|`);
for (const t of tasks)
  console.log(`|${t.task}|${t.addedLines}|${t.addedTokens}|${t.exactLines}|${t.startsBefore}|${t.runsPast}|`);
const kinds = {};
for (const s of straddles) {
  const key = `${s.kind}: ${JSON.stringify(s.straddlingToken)}`;
  kinds[key] = (kinds[key] ?? 0) + 1;
}
console.log(
  `\n${tasks.length} tasks, ${lines} added lines: ${exactLines} reproduced exactly by their tokens, ${lines - exactLines} not (${((100 * (lines - exactLines)) / lines).toFixed(1)} %); tasks with every line exact: ${tasks.filter((t) => t.exactLines === t.addedLines).length}; ${seconds.toFixed(1)} s`,
);
console.log("lines not reproduced exactly, by the token that straddles:");
for (const [key, n] of Object.entries(kinds).sort((a, b) => b[1] - a[1])) console.log(`  ${n}× ${key}`);
if (jsonOut)
  writeFileSync(jsonOut, `${JSON.stringify({ model: model.path, sha256: model.sha256, tasks, straddles }, null, 2)}\n`);
await engine.dispose?.();
process.exit(0);
