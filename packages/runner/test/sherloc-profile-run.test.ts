import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ChatCompletionRequest, type ScriptedModelServer, startScriptedModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { PredictionRecordSchema, type RunRecord, RunRecordSchema, runLayout } from "@loclab/schemas";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { besideSherlocRows, parseRunSpec, scoreRun, startRun } from "../src/index.js";

// A run with `localizer.profile: "sherloc"` against a scripted server over real HTTP that
// answers in SHERLOC's protocol: a repo_tree call, then a <locations> answer naming the first
// Python file of the tree it was shown. Real git mirrors (the toy benchmark), plain and
// shuffled cells (the answer's shuffled path is mapped back).
let toy: ToyBenchmark;
let server: ScriptedModelServer;
const seen: ChatCompletionRequest[] = [];
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 2 });
  server = await startScriptedModelServer({
    script: (request: ChatCompletionRequest) => {
      seen.push(request);
      const last = request.messages.at(-1)?.content ?? "";
      if (request.messages.length === 2)
        return { content: '<think>Look at the tree.</think>\n<tool_call>\n{"repo_tree": {}}\n</tool_call>' };
      const file = /[└|]-[-─] (\S+\.py)$/m.exec(String(last));
      // The tree's first file, with its folder: rebuild the path from the indentation.
      const path = treePath(String(last), file?.[1] ?? "");
      return {
        content: `<think>Done.</think>\n<findings>\n• Root cause: unknown\n</findings>\n<locations>\n${path}:L1-L3\nnot/a/file.py:L2\n</locations>`,
      };
    },
  });
});
afterAll(async () => {
  await server?.close();
  await toy?.dispose();
});

/** The path of `name`'s first occurrence in a SHERLOC tree (`|-- ` / `└── ` with 4-column indents). */
function treePath(tree: string, name: string): string {
  const lines = tree.split("\n");
  const at = lines.findIndex((line) => line.endsWith(` ${name}`));
  const parts = [name];
  let depth = (lines[at]?.search(/[|└]-/) ?? 0) / 4;
  for (let i = at - 1; i > 0 && depth > 0; i -= 1) {
    const line = lines[i] as string;
    const lineDepth = line.search(/(\|-- |└── )/) / 4;
    if (lineDepth === depth - 1) {
      parts.unshift(line.slice(line.search(/(\|-- |└── )/) + 4));
      depth -= 1;
    }
  }
  return parts.join("/");
}

describe("a run with the sherloc profile", () => {
  it("sends SHERLOC's protocol (no tools field, the tree in the first message), parses the <locations> answers, maps shuffled paths back, and scores both presets", async () => {
    const out = await mkdtemp(join(tmpdir(), "loclab-sherloc-profile-"));
    const spec = parseRunSpec({
      benchmark: toy.benchmark,
      seeds: [1],
      controls: [{ kind: "plain" }, { kind: "shuffled", seed: 3 }],
      endpoints: [{ baseURL: server.url, model: "scripted", maxConcurrency: 2 }],
      localizer: { profile: "sherloc", maxTurns: 5 },
      repos: toy.mirrors,
      out: join(out, "run"),
    });
    const summary = await startRun(spec);
    expect(summary.done).toBe(summary.keys);
    const records = readFileSync(runLayout.ledger(spec.out), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => RunRecordSchema.parse(JSON.parse(line)) as RunRecord);
    expect(records.map((record) => record.outcome)).toEqual(records.map(() => "finished"));
    expect(seen.every((request) => request.tools === undefined)).toBe(true);
    expect(seen.every((request) => request.temperature === 0.99 && request.top_p === 0.95)).toBe(true);
    const first = seen.find((request) => request.messages.length === 2);
    expect(first?.messages[1]?.content).toMatch(
      /^\n### Problem Description\n[\s\S]*\n\n### Repository Structure\n\.\n/,
    );
    // The shuffled cells were shown renamed folders (`d_…`), so the mapping back below is exercised.
    const trees = seen
      .filter((request) => request.messages.length === 2)
      .map((request) => String(request.messages[1]?.content));
    expect(trees.filter((tree) => /\bd_[0-9a-z]+/.test(tree))).toHaveLength(toy.rows.length);
    // SHERLOC's filter reads the original names, so both controls show trees of the same shape.
    const shapes = (shuffled: boolean) =>
      trees
        .filter((tree) => /\bd_[0-9a-z]+/.test(tree) === shuffled)
        .map((tree) => tree.split("\n").length)
        .sort();
    expect(shapes(true)).toEqual(shapes(false));
    for (const cell of ["seed-1/plain", "seed-1/shuffled-3"]) {
      const predictions = readFileSync(runLayout.predictions(spec.out, cell), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => PredictionRecordSchema.parse(JSON.parse(line)));
      expect(predictions).toHaveLength(toy.rows.length);
      for (const prediction of predictions) {
        expect(prediction.status).toBe("success");
        expect(prediction.locations).toHaveLength(1);
        // Mapped back to the original repository's names under the shuffled control.
        expect(prediction.locations[0]?.path).not.toMatch(/d_[0-9a-f]/);
      }
    }
    const score = await scoreRun(spec.out, { write: false });
    const rows = besideSherlocRows(score);
    expect(rows.map((row) => row.control)).toEqual(["plain", "shuffled:3"]);
    expect(Object.keys(rows[0] ?? {})).toEqual([
      "control",
      "file.acc@1",
      "sherloc.file_recall",
      "recall − acc@1",
      "sherloc.file_precision",
      "sherloc.chunk_coverage_recall",
      "sherloc.chunk_precision",
      "sherloc.chunk_avg_tightness",
    ]);
    // One file per answer: SHERLOC's file recall and acc@1 agree on single-file gold.
    for (const cell of score.cells)
      expect(cell.metrics["sherloc.file_recall"]).toBeCloseTo(cell.metrics["file.acc@1"] as number, 12);
  });
});
