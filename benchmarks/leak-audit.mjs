// Evidence (issue "First real use", items 1–3): the leak audit of the prompts a run spec's
// attempts are given, before and after the fix, without a model. For every attempt key of the
// spec (instances × seeds × controls), the issue text each cell hands the model is prepared as
// the runner prepares it (real mirrors, the shared workspace cache, real shuffled copies), and
// audited twice: "before" as the runner prompted before the fix (the user prompt's first line
// naming the instance id; shuffled cells under the `layout-only` text policy), "after" as it
// prompts now (an opaque task label; the `names` policy). Prints the per-cell sums; writes
// results/bench-leak-audit.json. Nothing is asserted.
//
//   npm run build && node benchmarks/leak-audit.mjs SPEC.json
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fillTemplate, readPromptTemplate } from "@loclab/agent";
import { goldAtBaseCommit } from "@loclab/checkouts";
import { LEAK_AUDIT_COUNTS, leakAudit } from "@loclab/controls";
import { CellWorkspaces, loadRunSpec, planRun } from "@loclab/runner";
import { defaultWorkspaceCacheDir } from "@loclab/tools";

const specFile = process.argv[2];
if (!specFile) {
  console.error("usage: node benchmarks/leak-audit.mjs SPEC.json");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const spec = await loadRunSpec(specFile);
const plan = await planRun(spec);
const workspaces = new CellWorkspaces({ mirrors: spec.repos, cacheDir: spec.cacheDir ?? defaultWorkspaceCacheDir() });
const { golds } = await goldAtBaseCommit({ instances: plan.instances, mirrors: spec.repos });
const goldOf = new Map(
  golds.map((gold) => [
    gold.instanceId,
    {
      files: gold.files,
      symbols: [...new Set([...(gold.exact?.symbols ?? []).map((s) => s.name), ...gold.symbols.map((s) => s.name)])],
    },
  ]),
);
const system = await readPromptTemplate("system");
const user = await readPromptTemplate("user");
// The user prompt's first line before the fix, word for word.
const OLD_USER = user.replace("(task `{{taskLabel}}`)", "(instance `{{instanceId}}`)");
const rows = new Map();
for (const attempt of plan.attempts) {
  const { instance, cell } = attempt;
  const gold = goldOf.get(instance.instance_id) ?? { files: [], symbols: [] };
  const audit = (text, packages) =>
    leakAudit({
      text,
      instanceId: instance.instance_id,
      repo: instance.repo,
      packages,
      goldFiles: gold.files,
      goldSymbols: gold.symbols,
    });
  const now = await workspaces.prepare(attempt);
  const before =
    cell.control.kind === "shuffled"
      ? await workspaces.prepare({
          ...attempt,
          cell: { ...cell, control: { ...cell.control, textPolicy: "layout-only" } },
        })
      : now;
  const after = audit(
    `${system}\n${fillTemplate(user, { taskLabel: `task-${attempt.key.slice(0, 8)}`, problemStatement: now.problemStatement })}`,
    now.packages,
  );
  const old = audit(
    `${system}\n${fillTemplate(OLD_USER, { instanceId: instance.instance_id, problemStatement: before.problemStatement })}`,
    now.packages,
  );
  let row = rows.get(attempt.cellLabel);
  if (!row)
    rows.set(
      attempt.cellLabel,
      (row = {
        cell: attempt.cellLabel,
        attempts: 0,
        before: Object.fromEntries(LEAK_AUDIT_COUNTS.map((f) => [f, 0])),
        after: Object.fromEntries(LEAK_AUDIT_COUNTS.map((f) => [f, 0])),
        foundAfter: {},
      }),
    );
  row.attempts += 1;
  for (const field of LEAK_AUDIT_COUNTS) {
    row.before[field] += old[field];
    row.after[field] += after[field];
  }
  for (const term of after.found) row.foundAfter[term] = (row.foundAfter[term] ?? 0) + 1;
}
const table = [...rows.values()].map((row) => ({
  cell: row.cell,
  attempts: row.attempts,
  ...Object.fromEntries(LEAK_AUDIT_COUNTS.map((f) => [f, `${row.before[f]} → ${row.after[f]}`])),
}));
console.table(table);
for (const row of rows.values())
  if (Object.keys(row.foundAfter).length > 0)
    console.log(
      `${row.cell} after: ${Object.entries(row.foundAfter)
        .map(([term, n]) => `${term} (${n})`)
        .join(", ")}`,
    );
const out = join(here, "..", "results", "bench-leak-audit.json");
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ measuredAt: new Date().toISOString(), spec: specFile, cells: [...rows.values()] }, null, 2)}\n`,
);
console.log(`wrote ${out}`);
