import { mkdir } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { BENCHMARKS, type BenchmarkName, isBenchmarkName } from "@loclab/datasets";
import type { Command } from "commander";
import { goldStage } from "../reproduce/gold-stage.js";
import { leaderboardStage } from "../reproduce/leaderboard-stage.js";
import { significanceStage } from "../reproduce/significance-stage.js";
import { trajectoriesStage } from "../reproduce/trajectories-stage.js";
import { localizerDemoStage } from "../reproduce/localizer-demo-stage.js";
import { realModelStage } from "../reproduce/real-model-stage.js";
import { summaryOf } from "../command-summaries.js";

interface ReproduceOptions {
  out: string;
  benchmarks: string;
  dataDir?: string;
}

/**
 * `loclab reproduce`: the main job on the bundled data, stage by stage, each writing its
 * tables and charts to `results/`: (1) benchmarks and gold locations (docs/definitions.md §2);
 * (2) the localization leaderboard of the bundled peer outputs (docs/definitions.md §3); (3) how far
 * apart SWE-bench leaderboard entries are (docs/definitions.md §7); (4) the failure breakdown of the
 * real agent runs (docs/definitions.md §8); (5) the localizer end to end on a fixture repository with
 * the scripted model server (docs/definitions.md §1).
 */
export function registerReproduceCommand(program: Command): void {
  program
    .command("reproduce")
    .description(summaryOf("reproduce"))
    .option("-o, --out <dir>", "output folder", "results")
    .option("--benchmarks <names>", "comma-separated benchmarks for the gold stage", Object.keys(BENCHMARKS).join(","))
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: ReproduceOptions) => {
      const started = performance.now();
      const names = options.benchmarks.split(",").map((name) => name.trim());
      const unknown = names.filter((name) => !isBenchmarkName(name));
      if (unknown.length > 0)
        throw new Error(
          `unknown benchmark(s) ${unknown.join(", ")}; expected some of ${Object.keys(BENCHMARKS).join(", ")}`,
        );
      const out = resolve(options.out);
      await mkdir(out, { recursive: true });
      const dataDir = options.dataDir ? { dataDir: options.dataDir } : {};

      process.stdout.write("== benchmarks and gold locations\n");
      const gold = await goldStage({ out, benchmarks: names as BenchmarkName[], ...dataDir });
      process.stdout.write("\n== localization leaderboard (unified vs. each peer's own preset)\n");
      const leaderboard = await leaderboardStage({ out, ...dataDir });
      process.stdout.write("\n== leaderboard significance (exact McNemar, Holm, power)\n");
      const significance = await significanceStage({ out, ...dataDir });
      process.stdout.write("\n== failure breakdown of the four real agent runs (41 common tasks)\n");
      const trajectories = await trajectoriesStage({ out, ...dataDir });
      process.stdout.write("\n== localizer demo (fixture repository, scripted model server over HTTP, scored)\n");
      const demo = await localizerDemoStage({ out });
      process.stdout.write(
        "\n== a real model (loclab serve on SmolLM2-135M-Instruct, CPU): the calc fixture, 2 seeds × 2 temperatures, scored and broken down\n",
      );
      const real = await realModelStage({ out });

      const written = [
        ...gold.written,
        ...leaderboard.written,
        ...significance.written,
        ...trajectories.written,
        ...demo.written,
        ...real.written,
      ];
      process.stdout.write(`\nwrote ${written.map((path) => relative(process.cwd(), path)).join(", ")}\n`);
      process.stdout.write(`reproduce finished in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      if (gold.failures > 0) process.exitCode = 1;
    });
}
