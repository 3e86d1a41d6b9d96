import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import { BLAGENT, COSIL, PRESET_NAMES, type Preset, type PresetName, UNIFIED, locagentPreset } from "@loclab/metrics";

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
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) throw new Error(`${file}: expected a list of instance ids`);
      return locagentPreset(ids as string[]);
    }
  }
}
