import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModelServer } from "@loclab/agent";
import { buildCalcFixture, CALC_ISSUE, calcSolvingTurns } from "@loclab/fixtures";
import { localizeSpec, startRun } from "@loclab/runner";
import { runLayout } from "@loclab/schemas";
import { scorePredictionsFile } from "@loclab/scoring";
import type { StageResult } from "./stage.js";

/**
 * Stage 5 of `loclab reproduce`: the localizer end to end, on a demo that runs anywhere — the
 * calc fixture (a planted bug, made with real git in a temporary folder, mirrored bare; the
 * same fixture the tests use), its issue, the scripted chat-completions server over real HTTP
 * standing in for a model (search, view, submit), the runner exactly as `loclab localize`
 * runs it (a one-cell run), and the predictions scored like any localizer's. With a real
 * model, point `loclab localize --endpoint` (or a run spec) at a vLLM server instead.
 */
export async function localizerDemoStage(options: { out: string }): Promise<StageResult> {
  const work = await mkdtemp(join(tmpdir(), "loclab-demo-"));
  const server = await startScriptedModelServer({ script: calcSolvingTurns(), models: ["scripted-demo"] });
  try {
    const { benchmark, mirrors } = await buildCalcFixture({ dir: work });
    const run = join(work, "run");
    const spec = localizeSpec({ benchmark, repos: mirrors, endpoint: server.url, model: "scripted-demo", out: run });
    const summary = await startRun(spec);
    const cell = "seed-none/plain";
    const predictionsPath = runLayout.predictions(run, cell);
    const scored = await scorePredictionsFile({ benchmark, predictions: predictionsPath, format: "loclab" });
    const written = [
      join(options.out, "localizer-demo-predictions.jsonl"),
      join(options.out, "localizer-demo-trajectory.jsonl"),
      join(options.out, "localizer-demo-score.json"),
    ];
    await copyFile(predictionsPath, written[0] as string);
    await copyFile(runLayout.trajectory(run, cell, CALC_ISSUE.instance_id, 1), written[1] as string);
    const metrics = Object.fromEntries(
      Object.values(scored.report.metrics).map((metric) => [metric.key, metric.value]),
    );
    await writeFile(
      written[2] as string,
      `${JSON.stringify({ outcomes: summary.outcomes, n: scored.report.n, metrics }, null, 2)}\n`,
    );
    const rows = [
      {
        what: "outcomes",
        value: Object.entries(summary.outcomes)
          .map(([key, n]) => `${key} ${n}`)
          .join(", "),
      },
      {
        what: "model requests (scripted server, real HTTP)",
        value: server.requests.filter((request) => request.method === "POST").length,
      },
      { what: "file.acc@1", value: metrics["file.acc@1"] ?? "" },
      {
        what: "span.coverageRecall / span.precision",
        value: `${metrics["span.coverageRecall"]} / ${metrics["span.precision"]}`,
      },
    ];
    return { written, rows };
  } finally {
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}
