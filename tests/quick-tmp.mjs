import { maskBenchmark, goldMentions } from "@loclab/controls";
import { loadBenchmark } from "@loclab/datasets";
import { filesAtCommit } from "@loclab/checkouts";
const b = await loadBenchmark("/tmp/m/verified-9.jsonl");
const lists = new Map();
for (const i of b.instances) lists.set(i.instance_id, await filesAtCommit({ mirrors: "/work/mirrors", repo: i.repo, commit: i.base_commit }));
const { rows } = maskBenchmark(b.instances, { knownFilesOf: (i) => ({ files: lists.get(i.instance_id) }) });
for (const r of rows) if (r.after.basename) { console.log(r.instanceId, r.goldFiles); const m = r.maskedProblemStatement; for (const f of r.goldFiles) { const base = f.split("/").pop(); const k = m.indexOf(base); console.log(JSON.stringify(m.slice(Math.max(0,k-100), k+60))); console.log(lists.get(r.instanceId).filter(p => p.endsWith("/"+base))); } }
// patches-mode masks of files not at base commit
const { rows: rows2 } = maskBenchmark(b.instances);
let n = 0, ex = [];
for (const r of rows2) { const set = new Set(lists.get(r.instanceId)); for (const rep of r.report.replacements) if (!set.has(rep.file)) { n++; ex.push(r.instanceId + " " + rep.original + " -> " + rep.file); } }
console.log("patch-mode replacements naming files absent at base commit:", n); console.log(ex.slice(0, 12).join("\n"));
