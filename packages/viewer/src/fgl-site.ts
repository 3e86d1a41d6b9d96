import { resolve } from "node:path";
import { type ScoreRecord, readScores } from "@loclab/fgl";
import type { SiteSource, SiteTrajectory } from "./run-site.js";
import { siteSummary } from "./site-summary.js";
import { appendRow, emptyRows, tableCells } from "./site-table.js";
import type { SiteColumn, TrajectoryView } from "./site-types.js";
import { buildTrajectoryView } from "./trajectory-view.js";

export const FGL_COLUMNS: SiteColumn[] = [
  { name: "instance", type: "string", description: "the task" },
  { name: "candidate", type: "string", description: "the candidate localization's id" },
  { name: "cell", type: "string", description: "the frozen fixer (model) that scored it" },
  { name: "teacher", type: "number", description: "1 for the teacher's own localization" },
  { name: "score", type: "number", description: "s_k = mean log p − λ_ctx·tok/1000 − λ_req·|a_k|" },
  { name: "logp", type: "number", description: "mean log p over y+'s tokens (nats per token)" },
  { name: "tokens", type: "number", description: "y+'s tokens" },
  { name: "ctx", type: "number", description: "tok(z): tokens of ctx(z)" },
  { name: "reads", type: "number", description: "|a_k|: hunks ctx(z) does not show" },
  { name: "error", type: "string", description: "why the candidate has no score" },
];

/**
 * A scores file of FGL's scoring (`loclab fgl score`, docs/definitions.md §5) as a site: a row
 * per task × candidate, each candidate's page the heat map of y+'s tokens by the frozen fixer's
 * log-probability (files scored before the tokens were kept show the numbers only).
 */
export async function fglSite(path: string, options: { revision?: number } = {}): Promise<SiteSource> {
  const file = resolve(path);
  const records = await readScores(file);
  const rows = emptyRows(FGL_COLUMNS);
  const trajectories: SiteTrajectory[] = [];
  for (const record of records) {
    const scored = "score" in record ? record : undefined;
    const id = trajectories.length;
    appendRow(rows, {
      instance: record.task,
      candidate: record.candidate,
      cell: scored?.model ?? "unscored",
      teacher: Number(record.teacher),
      score: scored?.score ?? null,
      logp: scored?.meanLogprob ?? null,
      tokens: scored?.addedTokens ?? null,
      ctx: scored?.ctxTokens ?? null,
      reads: scored?.extraReads ?? null,
      error: "error" in record ? record.error : null,
      t: id,
    });
    trajectories.push({ id, file, view: async () => candidateView(id, file, record) });
  }
  const cells = tableCells(rows, {
    averaged: ["teacher", "score", "logp", "ctx"],
    outcomeOf: (row) => (rows.error![row] === null ? "scored" : "failed"),
    partsOf: (cell) => ({ seed: null, control: "plain", arm: null, model: cell }),
  });
  const summary = await siteSummary({
    title: `FGL scores ${file}`,
    source: { kind: "imported", dir: file, format: "fgl-scores" },
    revision: options.revision,
    binary: "teacher",
    columns: FGL_COLUMNS,
    rows,
    cells,
  });
  return { summary, trajectories };
}

function candidateView(id: number, file: string, record: ScoreRecord): TrajectoryView {
  const view = buildTrajectoryView({
    id,
    instanceId: record.task,
    cell: "score" in record ? record.model : null,
    format: "fgl-scores",
    source: file,
    exit: "score" in record ? "scored" : record.errorKind,
    outcome: null,
    error: "error" in record ? record.error : null,
    model: "score" in record ? record.model : null,
    steps: [],
  });
  if (!("score" in record)) return view;
  const lines: { text: string; tokens: [string, number][] }[] = [];
  for (const [line, text, logprob] of record.tokens ?? []) {
    while (lines.length <= line) lines.push({ text: "", tokens: [] });
    lines[line]!.text += text;
    lines[line]!.tokens.push([text, logprob]);
  }
  return {
    ...view,
    fgl: {
      candidate: record.candidate,
      teacher: record.teacher,
      score: record.score,
      meanLogprob: record.meanLogprob,
      ctxTokens: record.ctxTokens,
      extraReads: record.extraReads,
      lines,
    },
  };
}
