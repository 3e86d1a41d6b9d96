import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { describe, expect, it } from "vitest";
import { loadPreset, scorePeerLeaderboard, scorePredictionsFile } from "@loclab/scoring";

// Published figures re-derived from the peers' own output files (issue 3 evidence).
const dataDir = resolveDataDir();
const file = (relative: string) => join(dataDir, relative);
const figures = (metrics: Record<string, { value: number }>, keys: string[]) =>
  keys.map((key) => Number(metrics[key]?.value.toFixed(4)));

describe("BLAgent preset reproduces the 15 figures of the BLAgent README (data README)", () => {
  it.each([
    ["claude-4-6", [0.9009, 0.8667, 0.93, 0.9467, 0.9533]],
    ["gpt-oss", [0.8514, 0.7867, 0.9233, 0.9333, 0.9433]],
    ["rag-code-chunking", [0.722, 0.6667, 0.7833, 0.7933, 0.8]],
  ] as const)("%s: MRR, Acc@1, Acc@3, Acc@5, Acc@10", async (name, expected) => {
    const { report } = await scorePredictionsFile({
      benchmark: "lite",
      predictions: file(`localization/blagent/${name}-lite.jsonl`),
      format: "blagent",
      preset: "blagent",
    });
    expect(report.n).toBe(300);
    expect(report.excluded).toBe(0);
    expect(figures(report.metrics, ["file.mrr", "file.acc@1", "file.acc@3", "file.acc@5", "file.acc@10"])).toEqual([
      ...expected,
    ]);
  });

  it("takes the same gold file as BLAgent's own gold_file_first on all 300 instances", async () => {
    const rows = readFileSync(file("localization/blagent/claude-4-6-lite.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { instance_id: string; gold_file_first: string });
    const { extractGold } = await import("@loclab/gold");
    const { loadBenchmark } = await import("@loclab/datasets");
    const firstFile = new Map(
      extractGold((await loadBenchmark("lite")).instances).golds.map((gold) => [gold.instanceId, gold.files[0]]),
    );
    expect(rows.filter((row) => firstFile.get(row.instance_id) !== row.gold_file_first)).toEqual([]);
  });
});

describe("LocAgent preset on LocAgent's Claude-3.5 Lite output", () => {
  const predictions = file("localization/locagent/claude35-lite.jsonl");

  it("scores N = 274 (26 excluded) and gives the LocAgent paper's accuracy figures", async () => {
    const { report } = await scorePredictionsFile({
      benchmark: "lite",
      predictions,
      format: "locagent",
      preset: "locagent",
    });
    expect([report.n, report.excluded]).toEqual([274, 26]);
    expect(figures(report.metrics, ["file.acc@1", "file.acc@3", "file.acc@5"])).toEqual([0.7774, 0.9197, 0.9416]);
    expect(figures(report.metrics, ["module.acc@5", "module.acc@10"])).toEqual([0.865, 0.8759]);
    expect(figures(report.metrics, ["function.acc@5", "function.acc@10"])).toEqual([0.7336, 0.7737]);
  });

  it("with the script's repeated-gold rule, module accuracy drops to 78.10 / 79.20", async () => {
    const { scoreLocalization, locagentPreset } = await import("@loclab/metrics");
    const { readLocAgentGold, readLocAgentPredictions } = await import("@loclab/predictions");
    const excluded = loadPreset("locagent").excludedIds;
    const gold = await readLocAgentGold(predictions);
    const { predictions: rows } = await readLocAgentPredictions(predictions);
    const report = scoreLocalization({
      instanceIds: [...gold.keys()],
      gold,
      predictions: new Map(rows.map((row) => [row.instanceId, row])),
      preset: locagentPreset(excluded, { countGoldRepeats: true }),
    });
    expect(figures(report.metrics, ["module.acc@5", "module.acc@10", "file.acc@1"])).toEqual([0.781, 0.792, 0.7774]);
  });
});

describe("CoSIL preset", () => {
  it("matches an independent count of file and function top-1 hits straight from the raw rows", async () => {
    const name = "localization/cosil/afl-loc-qwen-coder-32b-func.jsonl";
    const { report } = await scorePredictionsFile({
      benchmark: "lite",
      predictions: file(name),
      format: "agentless",
      preset: "cosil",
    });
    // The definition, literally: hit if the first predicted file (or the first function:/class:
    // name in found_related_locs order) is in the gold; every Lite instance counts.
    const gt = JSON.parse(readFileSync(file("localization/cosil/gt-lite.json"), "utf8")) as Record<
      string,
      string[] | string
    >;
    const rows = readFileSync(file(name), "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            instance_id: string;
            found_files: string[];
            found_related_locs: Record<string, string[]>;
          },
      );
    let fileHits = 0;
    let functionHits = 0;
    for (const row of rows) {
      const entries = ([] as string[]).concat(gt[row.instance_id] ?? []);
      if (row.found_files.length === 0) continue;
      if (entries.some((entry) => entry.split("::")[0] === row.found_files[0])) fileHits += 1;
      const firstName = Object.values(row.found_related_locs)
        .flat()
        .flatMap((text) => text.split("\n"))
        .find((line) => line.startsWith("function:") || line.startsWith("class:"))
        ?.split(": ")[1];
      if (firstName && entries.some((entry) => entry.split("::")[1] === firstName)) functionHits += 1;
    }
    expect(report.n).toBe(300);
    expect(report.metrics["file.hit@1"]?.value).toBe(fileHits / 300);
    expect(report.metrics["function.hit@1"]?.value).toBe(functionHits / 300);
    expect(
      figures(report.metrics, [
        "file.hit@1",
        "file.hit@3",
        "file.hit@5",
        "function.hit@1",
        "function.hit@3",
        "function.hit@5",
      ]),
    ).toEqual([0.6133, 0.78, 0.8367, 0.4333, 0.5467, 0.58]);
  });

  it("refuses a benchmark it has no gold for", async () => {
    await expect(
      scorePredictionsFile({
        benchmark: "locbench",
        predictions: file("localization/cosil/afl-loc-qwen-coder-32b-func.jsonl"),
        format: "agentless",
        preset: "cosil",
      }),
    ).rejects.toThrow("the cosil preset has gold for lite and verified only, not locbench");
  });
});

describe("the peer leaderboard", () => {
  it("scores all 16 bundled outputs under unified, under their own preset and by SHERLOC's evaluator", async () => {
    const entries = await scorePeerLeaderboard();
    expect(entries).toHaveLength(16);
    for (const { output, unified, own, sherloc } of entries) {
      expect(unified.report.preset).toBe("unified");
      expect(own.report.preset).toBe(output.preset);
      expect(sherloc.report.preset).toBe("sherloc");
      expect(sherloc.report.n).toBe(output.benchmark === "lite" ? 300 : 500);
      expect(unified.report.n).toBe(output.benchmark === "lite" ? 300 : 500);
      for (const metric of [...Object.values(unified.report.metrics), ...Object.values(own.report.metrics)]) {
        expect(metric.value).toBeGreaterThanOrEqual(0);
        expect(metric.value).toBeLessThanOrEqual(1);
      }
    }
  });
});
