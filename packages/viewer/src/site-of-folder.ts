import { existsSync } from "node:fs";
import type { RunFormat } from "@loclab/analysis";
import { runLayout } from "@loclab/schemas";
import { fglSite } from "./fgl-site.js";
import { importedSite } from "./imported-site.js";
import { runSite, type SiteSource } from "./run-site.js";

/**
 * The site of a folder: a loclab run folder (it has a manifest.json) unless `format` names one
 * of the imported formats, or `fgl-scores` (then `dir` is a scores file of `loclab fgl score`).
 * Also what `loclab view` watches to know when to make it again.
 */
export function siteOfFolder(
  dir: string,
  options: { format?: RunFormat | "run" | "fgl-scores" } = {},
): { build: (revision: number) => Promise<SiteSource>; watch: string[] } {
  const format = options.format ?? "run";
  if (format === "fgl-scores") return { build: (revision) => fglSite(dir, { revision }), watch: [dir] };
  if (format === "run" || (format === "loclab" && existsSync(runLayout.manifest(dir)))) {
    if (!existsSync(runLayout.manifest(dir)))
      throw new Error(`${dir}: no manifest.json: not a loclab run folder (for imported trajectories, give --format)`);
    return {
      build: (revision) => runSite(dir, { revision }),
      watch: [runLayout.ledger(dir), runLayout.manifest(dir)],
    };
  }
  return { build: (revision) => importedSite(dir, format, { revision }), watch: [dir] };
}
