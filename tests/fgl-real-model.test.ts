import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTrajectoryManifest } from "@loclab/analysis";
import { loadBenchmark } from "@loclab/datasets";
import {
  addedLineTokens,
  buildCandidates,
  checkoutCode,
  echoPrompt,
  fixerPrompt,
  readScores,
  scoreCandidates,
  trainingRecords,
} from "@loclab/fgl";
import { buildCalcFixture, CALC_FUNCTION_SPAN, type CalcFixture } from "@loclab/fixtures";
import { type ModelServer, startModelServer } from "@loclab/serve";
import { materializeWorkspace } from "@loclab/tools";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { dataDir } from "./helpers.js";

// FGL scoring with the real test model through `loclab serve` (docs/definitions.md §5): real
// tokenization, real echo log-probabilities and text offsets, the calc fixture checked out with
// real git. The model is tiny; what is checked is the machinery, not the model's judgement.

let server: ModelServer;
let fixture: CalcFixture;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "loclab-fgl-real-"));
  fixture = await buildCalcFixture({ dir: join(dir, "calc") });
  server = await startModelServer({ modelPath: inject("testModelPath"), port: 0, parallel: 1, contextSize: 2048 });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("FGL scoring on the test model", () => {
  it("echo offsets find y+ exactly on real gold patches: the selected tokens spell the added lines", async () => {
    const ids = (await readTrajectoryManifest(dataDir)).core_instance_set.ids;
    const lite = await loadBenchmark("lite");
    // The two shortest of the 41 tasks' fixer prompts (issue + verified patch), to keep the test short.
    const rows = lite.instances
      .filter((row) => ids.includes(row.instance_id))
      .sort((a, b) => a.problem_statement.length + a.patch.length - (b.problem_statement.length + b.patch.length))
      .slice(0, 2);
    for (const row of rows) {
      const prompt = fixerPrompt({ repo: row.repo, issue: row.problem_statement, context: "", patch: row.patch });
      const echoed = await echoPrompt({ baseURL: server.baseURL, model: server.modelName }, prompt.text);
      const shift = echoed.text.indexOf(prompt.text);
      expect(shift).toBeGreaterThanOrEqual(0);
      const tokens = addedLineTokens(echoed.offsets, prompt.added, { shift, promptEnd: prompt.text.length });
      expect(tokens).toMatchObject({ startsBefore: 0, runsPast: 0 });
      const end = (i: number) => (i + 1 < echoed.offsets.length ? echoed.offsets[i + 1]! : shift + prompt.text.length);
      const spelled = tokens.indices.map((i) => echoed.text.slice(echoed.offsets[i], end(i))).join("");
      expect(spelled).toBe(prompt.added.map(([a, b]) => prompt.text.slice(a, b)).join(""));
      for (const i of tokens.indices) expect(echoed.logprobs[i]).toBeLessThanOrEqual(0);
    }
  });

  it("scores calc's candidates from a real checkout, reproducibly; a missing file is that candidate's error only", async () => {
    const code = checkoutCode(
      await materializeWorkspace({ instance: fixture.row, mirrors: fixture.mirrors, cacheDir: join(dir, "cache") }),
    );
    const candidates = [
      ...buildCandidates({
        task: fixture.row.instance_id,
        teacher: {
          edits: [CALC_FUNCTION_SPAN],
          reads: [{ path: "calc/cli.py", startLine: 1, endLine: 7, role: "read" }],
          source: "calc fixture",
        },
      }),
      {
        task: fixture.row.instance_id,
        id: "ghost",
        kind: "sample" as const,
        teacher: false,
        locations: [{ path: "calc/nowhere.py", startLine: 1, endLine: 2, role: "read" as const }],
        provenance: { source: "test" },
      },
    ];
    expect(candidates.map((c) => c.id)).toEqual(["teacher", "edited-only", "viewed-only", "ghost"]);
    const task = {
      task: fixture.row.instance_id,
      repo: fixture.row.repo,
      issue: fixture.row.problem_statement,
      patch: fixture.patch,
      candidates,
      code,
    };
    const endpoint = { baseURL: server.baseURL, model: server.modelName };
    const first = await scoreCandidates({
      tasks: [task],
      endpoints: [endpoint],
      out: join(dir, "first.jsonl"),
      budget: 400,
    });
    expect(first).toMatchObject({ total: 4, scored: 3, failed: 1 });
    await scoreCandidates({ tasks: [task], endpoints: [endpoint], out: join(dir, "second.jsonl"), budget: 400 });
    const scores = async (file: string): Promise<Record<string, number | string>> =>
      Object.fromEntries(
        (await readScores(join(dir, file))).map((r): [string, number | string] =>
          "score" in r ? [r.candidate, r.score] : ["error", r.error],
        ),
      );
    const a = await scores("first.jsonl");
    // The same request twice: the same score, to the last bit.
    expect(await scores("second.jsonl")).toEqual(a);
    expect(a.error).toBe("acme__calc-1 / ghost: calc/nowhere.py does not exist at base commit");
    const records = await readScores(join(dir, "first.jsonl"));
    const teacher = records.find((r) => r.candidate === "teacher");
    const viewed = records.find((r) => r.candidate === "viewed-only");
    if (!teacher || !("score" in teacher) || !viewed || !("score" in viewed)) throw new Error("missing scores");
    // The viewed code (cli.py) does not show the edited line: one extra read; the teacher shows it.
    expect(teacher.extraReads).toBe(0);
    expect(viewed.extraReads).toBe(1);
    expect(teacher.meanLogprob).toBeLessThan(0);
    expect(teacher.ctxTokens).toBeGreaterThan(viewed.ctxTokens);
    // The heat map's tokens: the model's own, spelling each added line of y* (markers included), their mean the score's.
    const added = task.patch.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++"));
    const spelled = added.map((_, line) =>
      teacher
        .tokens!.filter(([l]) => l === line)
        .map(([, text]) => text)
        .join(""),
    );
    expect(spelled).toEqual(added);
    expect(teacher.tokens!.reduce((sum, [, , logprob]) => sum + logprob, 0) / teacher.tokens!.length).toBeCloseTo(
      teacher.meanLogprob,
      12,
    );
    // Weighted records: a task's weights sum to 1 and the teacher carries at least the anchor.
    const result = trainingRecords(candidates, records);
    expect(result.records.reduce((s, r) => s + r.weight, 0)).toBeCloseTo(1, 12);
    expect(result.records.find((r) => r.candidate === "teacher")!.weight).toBeGreaterThanOrEqual(0.5);
    expect(result.table[0]).toMatchObject({ task: "acme__calc-1", candidates: 4, scored: 3, failed: 1 });
  });
});
