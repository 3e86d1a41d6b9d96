import type { Preset } from "./preset-type.js";

const ALL: Preset["levels"]["file"] = {
  ks: [1, 3, 5, 10],
  metrics: ["hit", "acc", "recall", "precision", "mrr", "map"],
};

/**
 * The unified definitions of docs/definitions.md §3: hit@k, acc@k, recall@k (over |G|), precision@k
 * (over k), MRR and MAP (over |G|) at file, module and function level, k ∈ {1, 3, 5, 10}, plus
 * line-span coverage recall, precision and tightness. Gold comes from the patch (files,
 * spans; function gold where a function-level gold exists). Instances with empty gold are
 * excluded and counted; an instance without a prediction scores 0.
 */
export const UNIFIED: Preset = {
  name: "unified",
  description:
    "docs/definitions.md §3 unified definitions; gold from the patch; empty gold excluded; missing prediction scores 0",
  goldSource: "patch",
  levels: { file: ALL, module: ALL, function: ALL },
  spans: true,
  excludedIds: new Set(),
  excludeEmptyGold: true,
  recallDenominator: "gold",
  mapRule: "gold",
  symbolMatch: "id",
  stripInitSuffix: false,
  emptyFilesMeansMiss: false,
  goldSizeCountsRepeats: false,
};

/**
 * LocAgent's published rules (LocAgent repository, `evaluation/eval_metric.py`, function
 * `cal_metrics_w_file`; docs/definitions.md §3): gold from the output file's own
 * `meta_data.gt_file_changes` (files; `edited_modules`; `edited_entities`); the 26 instances
 * of its hard-coded `filtered_instances` list are left out (N = 274 on Lite), as are
 * instances with empty gold at a level; k = {1, 3, 5} for files and {5, 10} for modules and
 * functions; acc@k = all min(|G|, k) gold items in the top k; recall@k divides by
 * min(|G|, largest k of the level); precision@k divides by k; MAP@k sums precision@r over
 * hits in the top k and divides by k; predicted function ids lose a trailing `.__init__`
 * and repeats (modules are entities as written otherwise).
 *
 * |G| counts distinct gold items. The script as published sizes its ideal vector by the
 * length of the gold list, which repeats a module in 24 Lite instances; that gives module
 * acc@5/@10 of 78.10/79.20 for LocAgent's Claude-3.5 output instead of 86.50/87.59, the
 * figures that distinct gold reproduces. `countGoldRepeats: true` applies the script's rule.
 */
export function locagentPreset(excludedIds: Iterable<string>, options: { countGoldRepeats?: boolean } = {}): Preset {
  return {
    name: "locagent",
    description:
      "LocAgent eval_metric.py: own gt_file_changes gold; 26 filtered instances excluded; recall@k over min(|G|, max k); MAP@k over k; '.__init__' stripped from predicted functions",
    goldSource: "locagent-gt-file-changes",
    levels: {
      file: { ks: [1, 3, 5], metrics: ["acc", "recall", "precision", "map"] },
      module: { ks: [5, 10], metrics: ["acc", "recall", "precision", "map"] },
      function: { ks: [5, 10], metrics: ["acc", "recall", "precision", "map"] },
    },
    spans: false,
    excludedIds: new Set(excludedIds),
    excludeEmptyGold: true,
    recallDenominator: "min-gold-max-k",
    mapRule: "divide-by-k",
    symbolMatch: "id",
    stripInitSuffix: true,
    emptyFilesMeansMiss: false,
    goldSizeCountsRepeats: options.countGoldRepeats ?? false,
  };
}

/**
 * BLAgent's published rules (BLAgent README, quoted in ../shared/data/README.md): one gold
 * file per instance, the first file of the gold diff; N = 300 (no exclusion); Acc@k = the
 * gold file is within the first k ranked files (with one gold file, acc@k = hit@k);
 * MRR = 1/rank of the gold file, 0 if absent.
 */
export const BLAGENT: Preset = {
  name: "blagent",
  description:
    "BLAgent README: gold = first file of the gold diff; N = 300; Acc@k = gold file in top k; MRR = 1/rank or 0",
  goldSource: "patch-first-file",
  levels: { file: { ks: [1, 3, 5, 10], metrics: ["acc", "mrr"] } },
  spans: false,
  excludedIds: new Set(),
  excludeEmptyGold: true,
  recallDenominator: "gold",
  mapRule: "gold",
  symbolMatch: "id",
  stripInitSuffix: false,
  emptyFilesMeansMiss: false,
  goldSizeCountsRepeats: false,
};

/**
 * CoSIL's published rules (CoSIL repository, `evaluation/FLEvalNew.py`; docs/definitions.md §3): gold
 * from its own `gt.json` / `gt_verified.json` (`path::Name`), files = the path parts,
 * functions = the names alone; TOP-k = hit@k over every instance of the split (a missing
 * prediction, or one with no file, counts as a miss at both levels; empty gold is kept as a
 * miss); predicted functions are the `function:` / `class:` lines of `found_related_locs`
 * in order, compared by name alone, without the path; MAP (over |G|) and MRR read the first
 * 5 files.
 */
export const COSIL: Preset = {
  name: "cosil",
  description:
    "CoSIL FLEvalNew.py: own gt gold; hit@k over the whole split (missing = miss); functions matched by name alone; files cut to the first 5 for MAP/MRR",
  goldSource: "cosil-gt",
  levels: {
    file: { ks: [1, 3, 5], metrics: ["hit", "mrr", "map"], cutoff: 5 },
    function: { ks: [1, 3, 5], metrics: ["hit", "mrr", "map"] },
  },
  spans: false,
  excludedIds: new Set(),
  excludeEmptyGold: false,
  recallDenominator: "gold",
  mapRule: "gold",
  symbolMatch: "name-only",
  stripInitSuffix: false,
  emptyFilesMeansMiss: true,
  goldSizeCountsRepeats: false,
};

export const PRESET_NAMES = ["unified", "locagent", "blagent", "cosil"] as const;
export type PresetName = (typeof PRESET_NAMES)[number];
