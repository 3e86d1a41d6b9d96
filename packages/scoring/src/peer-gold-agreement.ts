import { join } from "node:path";
import { isBenchmarkName, resolveDataDir } from "@loclab/datasets";
import type { GoldLocations } from "@loclab/gold";
import { readCosilGold, readLocAgentGold } from "@loclab/predictions";
import { compareFunctionGold, type GoldAgreement } from "./gold-agreement.js";

/** loclab's exact function gold against one peer's. */
export interface PeerGoldAgreement {
  peer: string;
  agreement: GoldAgreement;
}

/**
 * loclab's exact function gold (`gold.exact`, read at base commit) against every peer function
 * gold in the data folder that covers the benchmark: LocAgent's `edited_entities` (lite) and
 * CoSIL's `gt-<benchmark>.json` (lite, verified). Only instances with an exact gold are
 * compared; a class counts as itself (docs/definitions.md §2). A benchmark no peer covers is an
 * error saying which do.
 */
export async function peerGoldAgreement(options: {
  golds: readonly GoldLocations[];
  benchmark: string;
  dataDir?: string;
}): Promise<PeerGoldAgreement[]> {
  const { golds, benchmark } = options;
  const dataDir = resolveDataDir(options.dataDir ? { dataDir: options.dataDir } : {});
  const exact = new Map(
    golds.flatMap((gold) => (gold.exact ? [[gold.instanceId, gold.exact.functions] as const] : [])),
  );
  const classes = new Set(
    golds.flatMap((gold) =>
      (gold.exact?.symbols ?? [])
        .filter((symbol) => symbol.kind === "class")
        .map((symbol) => `${symbol.path}:${symbol.name}`),
    ),
  );
  const peers: PeerGoldAgreement[] = [];
  if (benchmark === "lite") {
    const locagent = await readLocAgentGold(join(dataDir, "localization/locagent/claude35-lite.jsonl"));
    const functions = new Map([...locagent].map(([id, gold]) => [id, gold.functions]));
    peers.push({ peer: "LocAgent edited_entities", agreement: compareFunctionGold(exact, functions, { classes }) });
  }
  if (isBenchmarkName(benchmark) && benchmark !== "locbench") {
    const cosil = await readCosilGold(join(dataDir, `localization/cosil/gt-${benchmark}.json`));
    const functions = new Map(
      [...cosil].map(([id, entries]) => [
        id,
        entries.filter((entry) => entry.includes("::")).map((entry) => entry.replace("::", ":")),
      ]),
    );
    peers.push({ peer: `CoSIL gt-${benchmark}.json`, agreement: compareFunctionGold(exact, functions, { classes }) });
  }
  if (peers.length === 0)
    throw new Error(
      `gold --agreement: no peer function gold covers ${benchmark} (LocAgent: lite; CoSIL: lite, verified)`,
    );
  return peers;
}
