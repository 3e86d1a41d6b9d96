import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { BLAGENT, COSIL, PRESET_NAMES, type Preset, type PresetName, UNIFIED, locagentPreset } from "@loclab/metrics";

/**
 * SHERLOC's evaluator, a preset beside the ranking presets: it scores location lists, not
 * rankings, with its own gold (`sherlocGoldLocations`) and report (`scoreSherloc`), so it is
 * not a `Preset` and `loadPreset` does not return it; `scorePredictionsFile` and the run
 * scorer call it by name.
 */
export const SHERLOC_PRESET = "sherloc";
/** Every preset `loclab score --preset` takes. */
export const SCORING_PRESETS = [...PRESET_NAMES, SHERLOC_PRESET] as const;
/** The gold the `sherloc` preset scores against, in words. */
export const SHERLOC_GOLD_SOURCE =
  "sherloc: changed pre-patch lines of the patch, adjacent merged, created files left out (SHERLOC's PatchProcessor)";

/** LocAgent's hard-coded exclusion list, as copied into ../shared/data (26 Lite ids). */
export const LOCAGENT_EXCLUDED_FILE = "localization/locagent/excluded-instances.json";

/**
 * A preset by name. `locagent` needs its exclusion list, read from the data folder; the
 * others are constants of @loclab/metrics.
 */
export function loadPreset(name: string, options: { dataDir?: string } = {}): Preset {
  if (!(PRESET_NAMES as readonly string[]).includes(name)) {
    throw new Error(`unknown preset ${JSON.stringify(name)}: expected one of ${PRESET_NAMES.join(", ")}`);
  }
  switch (name as PresetName) {
    case "unified":
      return UNIFIED;
    case "blagent":
      return BLAGENT;
    case "cosil":
      return COSIL;
    case "locagent": {
      const file = join(resolveDataDir(options), LOCAGENT_EXCLUDED_FILE);
      const ids = JSON.parse(readFileSync(file, "utf8")) as unknown;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string"))
        throw new Error(`${file}: expected a list of instance ids`);
      return locagentPreset(ids as string[]);
    }
  }
}
