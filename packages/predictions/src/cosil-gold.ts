import { readFile } from "node:fs/promises";
import { formatZodError } from "@loclab/schemas";
import { z } from "zod";

const CosilGoldSchema = z.record(z.string(), z.union([z.array(z.string()), z.string()]));

/**
 * CoSIL's gold (`gt-lite.json`, `gt-verified.json`): instance id → entries `path::Name`
 * (a function or class) or a bare `path` (a file with no named symbol), the gold its preset
 * compares `functions` with, by name alone (docs/definitions.md §3).
 *
 * Entries are de-duplicated, keeping the first (CoSIL's `parse_gt_methods` builds sets;
 * gt-lite lists `sympy__sympy-18698`'s entry twice). A value written as a bare string instead
 * of a list (`sympy__sympy-23950` in gt-verified.json) is read as a one-entry list: CoSIL's
 * script would iterate its characters and find no usable gold, so a preset that must match
 * CoSIL's numbers exactly has to treat that instance as having none. Anything else is an
 * error naming the file and the field.
 *
 * @example (await readCosilGold("gt-lite.json")).get("astropy__astropy-12907") // ["astropy/modeling/separable.py::_cstack"]
 */
export async function readCosilGold(file: string): Promise<Map<string, string[]>> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`cannot read CoSIL gold ${file}: ${reason}`, { cause: error });
  }
  const parsed = CosilGoldSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `${file}: not a CoSIL gold file (instance id → list of "path::Name"): ${formatZodError(parsed.error)}`,
    );
  const gold = new Map<string, string[]>();
  for (const [instanceId, entries] of Object.entries(parsed.data)) {
    gold.set(instanceId, [...new Set(typeof entries === "string" ? [entries] : entries)]);
  }
  return gold;
}
