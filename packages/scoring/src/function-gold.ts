import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type BenchmarkName, resolveDataDir } from "@loclab/datasets";
import { readCosilGold } from "@loclab/predictions";

/**
 * Where the unified preset takes function-level gold from, per bundled benchmark. The patch
 * alone gives only approximate symbols (docs/definitions.md §2), so function gold comes from a parsed
 * source: Loc-Bench's own `edit_functions` (`path:Class.method`), and for SWE-bench Lite and
 * Verified CoSIL's gold (`path::Name`, rewritten `path:Name`), the one function-level gold in
 * ../shared/data that covers both splits. Module gold is derived from it (`path:Top`).
 */
export const FUNCTION_GOLD_FILES: Record<BenchmarkName, string> = {
  lite: "localization/cosil/gt-lite.json",
  verified: "localization/cosil/gt-verified.json",
  locbench: "locbench/locbench-v1-edit-functions.json",
};

/** Function-level gold ids (`path:Class.method`) per instance for a bundled benchmark. */
export async function loadFunctionGold(
  benchmark: BenchmarkName,
  options: { dataDir?: string } = {},
): Promise<Map<string, string[]>> {
  const file = join(resolveDataDir(options), FUNCTION_GOLD_FILES[benchmark]);
  if (!existsSync(file)) throw new Error(`function-level gold for ${benchmark}: ${file} is missing`);
  if (benchmark === "locbench") {
    const raw = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    const gold = new Map<string, string[]>();
    for (const [id, value] of Object.entries(raw)) {
      if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
        throw new Error(`${file}: ${id}: expected a list of "path:Name" strings`);
      }
      gold.set(id, value as string[]);
    }
    return gold;
  }
  const cosil = await readCosilGold(file);
  // `path::Name` → `path:Name`; entries that name a file only carry no function.
  return new Map(
    [...cosil].map(([id, entries]) => [
      id,
      entries.filter((entry) => entry.includes("::")).map((entry) => entry.replace("::", ":")),
    ]),
  );
}
