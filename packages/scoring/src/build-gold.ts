import { join } from "node:path";
import { type BenchmarkName, isBenchmarkName, resolveDataDir } from "@loclab/datasets";
import { extractGold } from "@loclab/gold";
import type { GoldTargets, Preset } from "@loclab/metrics";
import { readCosilGold, readLocAgentGold } from "@loclab/predictions";
import type { Instance } from "@loclab/schemas";
import { loadFunctionGold } from "./function-gold.js";

export interface BuildGoldOptions {
  preset: Preset;
  /** The benchmark's short name, when it is a bundled one (selects peer gold files). */
  benchmark?: string;
  instances: readonly Instance[];
  /** The predictions file: LocAgent's preset reads its gold from the same file. */
  predictionsFile?: string;
  dataDir?: string;
}

export interface BuiltGold {
  gold: Map<string, GoldTargets>;
  /** Where it came from, in words, for reports. */
  source: string;
  /** Instances whose patch could not be read (their gold is empty, so they are excluded). */
  patchFailures: { instanceId: string; message: string }[];
}

/**
 * The gold a preset scores against (`Preset.goldSource`): the patch (files and spans; function
 * gold from `loadFunctionGold` for bundled benchmarks), the first file of the patch (BLAgent),
 * LocAgent's own `gt_file_changes` from the predictions file, or CoSIL's `gt.json`.
 */
export async function buildGold(options: BuildGoldOptions): Promise<BuiltGold> {
  const { preset, instances } = options;
  const bundled: BenchmarkName | undefined = options.benchmark && isBenchmarkName(options.benchmark) ? options.benchmark : undefined;
  const dataDirOption = options.dataDir ? { dataDir: options.dataDir } : {};
  switch (preset.goldSource) {
    case "patch":
    case "patch-first-file": {
      const { golds, failures } = extractGold(instances);
      const functions = preset.goldSource === "patch" && bundled ? await loadFunctionGold(bundled, dataDirOption) : undefined;
      const gold = new Map<string, GoldTargets>();
      for (const g of golds) {
        if (preset.goldSource === "patch-first-file") {
          gold.set(g.instanceId, { files: g.files.slice(0, 1) });
          continue;
        }
        const fn = functions?.get(g.instanceId);
        gold.set(g.instanceId, {
          files: g.files,
          spans: g.spans.map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
          ...(fn ? { functions: fn } : {}),
        });
      }
      const source =
        preset.goldSource === "patch-first-file"
          ? "first file of the gold patch"
          : `gold patch (files, spans)${bundled ? `; functions from ${bundled === "locbench" ? "Loc-Bench edit_functions" : "CoSIL gt"}` : ""}`;
      return { gold, source, patchFailures: failures.map(({ instanceId, message }) => ({ instanceId, message })) };
    }
    case "locagent-gt-file-changes": {
      if (!options.predictionsFile) throw new Error("the locagent preset reads its gold from the predictions file (meta_data.gt_file_changes): pass a LocAgent output file");
      const locagent = await readLocAgentGold(options.predictionsFile);
      const gold = new Map<string, GoldTargets>([...locagent].map(([id, g]) => [id, { files: g.files, modules: g.modules, functions: g.functions }]));
      return { gold, source: `LocAgent gt_file_changes in ${options.predictionsFile}`, patchFailures: [] };
    }
    case "cosil-gt": {
      if (bundled !== "lite" && bundled !== "verified") throw new Error(`the cosil preset has gold for lite and verified only, not ${options.benchmark ?? "a user file"}`);
      const file = join(resolveDataDir(dataDirOption), bundled === "lite" ? "localization/cosil/gt-lite.json" : "localization/cosil/gt-verified.json");
      const cosil = await readCosilGold(file);
      const gold = new Map<string, GoldTargets>(
        [...cosil].map(([id, entries]) => [id, { files: [...new Set(entries.map((entry) => entry.split("::")[0] ?? entry))], functions: entries.filter((entry) => entry.includes("::")) }]),
      );
      return { gold, source: `CoSIL gt (${file})`, patchFailures: [] };
    }
  }
}
