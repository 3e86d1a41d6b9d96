import { loadBenchmark, resolveDataDir } from "@loclab/datasets";
import { goldAtBaseCommit } from "@loclab/checkouts";
import { readLocAgentGold, readCosilGold } from "@loclab/predictions";
import { join } from "node:path";
const name = process.argv[2] ?? "lite";
const bench = await loadBenchmark(name);
const have = new Set(["astropy/astropy","mwaskom/seaborn","pallets/flask","psf/requests","pydata/xarray","pylint-dev/pylint","pytest-dev/pytest","sphinx-doc/sphinx","sympy/sympy"]);
const instances = bench.instances.filter(i => have.has(i.repo));
const { golds } = await goldAtBaseCommit({ instances, mirrors: "/work/mirrors" });
const data = resolveDataDir({});
const cosil = await readCosilGold(join(data, `localization/cosil/gt-${name}.json`));
const loc = name === "lite" ? await readLocAgentGold(join(data, "localization/locagent/claude35-lite.jsonl")) : new Map();
let same = 0, n = 0, sameC = 0, nC = 0;
for (const g of golds) {
  const ex = new Set(g.exact.functions);
  const l = loc.get(g.instanceId);
  if (l) { n++; const ls = new Set(l.functions); const eq = ls.size === ex.size && [...ls].every(x => ex.has(x)); if (eq) same++; else if (process.argv[3]==="l") console.log("L", g.instanceId, [...ex].join(" "), "|", [...ls].join(" ")); }
  const c = cosil.get(g.instanceId);
  if (c) { nC++; const cs = new Set(c.filter(e => e.includes("::")).map(e => e.replace("::", ":"))); const eq = cs.size === ex.size && [...cs].every(x => ex.has(x)); if (eq) sameC++; else if (process.argv[3]==="c") console.log("C", g.instanceId, [...ex].join(" "), "|", [...cs].join(" "), "| ml", g.exact.moduleLevel.length); }
}
console.log({ n, same, nC, sameC });
