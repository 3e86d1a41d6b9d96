import { join } from "node:path";
import { type BenchmarkName, isBenchmarkName, resolveDataDir } from "@loclab/datasets";
import { goldAtBaseCommit } from "@loclab/checkouts";
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
  /**
   * A folder of mirrors (`<owner>__<name>[.git]`): the patch gold is then placed on the real
   * files at base commit (spans at their real lines, exact function gold from tree-sitter:
   * `goldAtBaseCommit`), instead of the `@@` numbers and CoSIL's or Loc-Bench's function gold.
   */
  repos?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface BuiltGold {
  gold: Map<string, GoldTargets>;
  /** Where it came from, in words, for reports. */
  source: string;
  /** Instances whose patch could not be read (their gold is empty, so they are excluded). */
  patchFailures: { instanceId: string; message: string }[];
  /**
   * With `repos`: instances that could not be read at base commit (no mirror, missing commit).
   * Their gold is the patch-only gold (the `@@` numbers, the bundled function gold).
   */
  checkoutFailures: { instanceId: string; message: string }[];
}

/**
 * The gold a preset scores against (`Preset.goldSource`): the patch (files and spans; function
 * gold from `loadFunctionGold` for bundled benchmarks), the first file of the patch (BLAgent),
 * LocAgent's own `gt_file_changes` from the predictions file, or CoSIL's `gt.json`.
 */
export async function buildGold(options: BuildGoldOptions): Promise<BuiltGold> {
  const { preset, instances } = options;
  const bundled: BenchmarkName | undefined =
    options.benchmark && isBenchmarkName(options.benchmark) ? options.benchmark : undefined;
  const dataDirOption = options.dataDir ? { dataDir: options.dataDir } : {};
  switch (preset.goldSource) {
    case "patch":
    case "patch-first-file": {
      if (options.repos && preset.goldSource === "patch") return patchGoldAtBaseCommit(options, options.repos, bundled);
      const { golds, failures } = extractGold(instances);
      const functions =
        preset.goldSource === "patch" && bundled ? await loadFunctionGold(bundled, dataDirOption) : undefined;
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
          : `gold patch (files, spans at the patch's @@ numbers: no checkout)${bundled ? `; functions from ${bundled === "locbench" ? "Loc-Bench edit_functions" : "CoSIL gt"}` : ""}`;
      return {
        gold,
        source,
        patchFailures: failures.map(({ instanceId, message }) => ({ instanceId, message })),
        checkoutFailures: [],
      };
    }
    case "locagent-gt-file-changes": {
      if (!options.predictionsFile)
        throw new Error(
          "the locagent preset reads its gold from the predictions file (meta_data.gt_file_changes): pass a LocAgent output file",
        );
      const locagent = await readLocAgentGold(options.predictionsFile);
      const gold = new Map<string, GoldTargets>(
        [...locagent].map(([id, g]) => [id, { files: g.files, modules: g.modules, functions: g.functions }]),
      );
      return {
        gold,
        source: `LocAgent gt_file_changes in ${options.predictionsFile}`,
        patchFailures: [],
        checkoutFailures: [],
      };
    }
    case "cosil-gt": {
      if (bundled !== "lite" && bundled !== "verified")
        throw new Error(
          `the cosil preset has gold for lite and verified only, not ${options.benchmark ?? "a user file"}`,
        );
      const file = join(
        resolveDataDir(dataDirOption),
        bundled === "lite" ? "localization/cosil/gt-lite.json" : "localization/cosil/gt-verified.json",
      );
      const cosil = await readCosilGold(file);
      const gold = new Map<string, GoldTargets>(
        [...cosil].map(([id, entries]) => [
          id,
          {
            files: [...new Set(entries.map((entry) => entry.split("::")[0] ?? entry))],
            functions: entries.filter((entry) => entry.includes("::")),
          },
        ]),
      );
      return { gold, source: `CoSIL gt (${file})`, patchFailures: [], checkoutFailures: [] };
    }
  }
}

/**
 * The unified gold with a checkout: files and spans placed on the pre-image, functions exact.
 * An instance that cannot be read at base commit falls back to the patch-only gold and is
 * listed; one whose patch does not parse has no gold.
 */
async function patchGoldAtBaseCommit(
  options: BuildGoldOptions,
  repos: string,
  bundled: BenchmarkName | undefined,
): Promise<BuiltGold> {
  const { golds, failures, unreadable } = await goldAtBaseCommit({
    instances: options.instances,
    mirrors: repos,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  // Instances without a checkout have patch-only gold: their functions come from the bundled file, as without --repos.
  const functions =
    bundled && unreadable.length > 0
      ? await loadFunctionGold(bundled, options.dataDir ? { dataDir: options.dataDir } : {})
      : undefined;
  const gold = new Map<string, GoldTargets>();
  for (const g of golds) {
    const fn = g.exact ? g.exact.functions : functions?.get(g.instanceId);
    gold.set(g.instanceId, {
      files: g.files,
      spans: g.spans.map(({ path, startLine, endLine }) => ({ path, startLine, endLine })),
      ...(fn ? { functions: fn } : {}),
    });
  }
  const source = `gold patch placed on the files at base commit (${repos}): spans at their real lines, exact functions from tree-sitter${unreadable.length > 0 ? `; ${unreadable.length} instance(s) without a checkout keep the patch's @@ numbers` : ""}`;
  return { gold, source, patchFailures: failures, checkoutFailures: unreadable };
}
