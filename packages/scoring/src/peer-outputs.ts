import { readdirSync } from "node:fs";
import { join } from "node:path";
import { resolveDataDir } from "@loclab/datasets";
import type { PredictionFormat } from "@loclab/predictions";

/** One published localization output in ../shared/data/localization, and how to read it. */
export interface PeerOutput {
  /** A short system name for tables. */
  system: string;
  /** Path relative to the data folder. */
  file: string;
  benchmark: "lite" | "verified";
  format: PredictionFormat;
  /** The preset that reproduces the peer's own published rules. */
  preset: "locagent" | "blagent" | "cosil";
}

/**
 * Every localization output bundled in the data folder (data README, "localization/" rows),
 * classified by its folder: LocAgent's output is in LocAgent's format and scored by its
 * preset; BLAgent's ranked lists by BLAgent's; CoSIL's Agentless-format files by CoSIL's,
 * on Verified when the name starts with `verified-`, else on Lite. Gold files are skipped.
 */
export function listPeerOutputs(options: { dataDir?: string } = {}): PeerOutput[] {
  const root = join(resolveDataDir(options), "localization");
  const outputs: PeerOutput[] = [];
  const files = (folder: string) =>
    readdirSync(join(root, folder))
      .filter((name) => name.endsWith(".jsonl"))
      .sort();
  for (const name of files("locagent")) {
    outputs.push({
      system: `locagent/${name.replace(/\.jsonl$/, "")}`,
      file: `localization/locagent/${name}`,
      benchmark: "lite",
      format: "locagent",
      preset: "locagent",
    });
  }
  for (const name of files("blagent")) {
    outputs.push({
      system: `blagent/${name.replace(/-lite\.jsonl$/, "")}`,
      file: `localization/blagent/${name}`,
      benchmark: "lite",
      format: "blagent",
      preset: "blagent",
    });
  }
  for (const name of files("cosil")) {
    const verified = name.startsWith("verified-");
    outputs.push({
      system: `cosil/${shortCosilName(name)}`,
      file: `localization/cosil/${name}`,
      benchmark: verified ? "verified" : "lite",
      format: "agentless",
      preset: "cosil",
    });
  }
  return outputs;
}

/**
 * A readable name for a CoSIL-folder file: `verified-afl-afl-qwen-coder-32b-func.jsonl` →
 * `afl-qwen-coder-32b` (the benchmark is a column of its own); names stay unique.
 */
function shortCosilName(file: string): string {
  return file
    .replace(/\.jsonl$/, "")
    .replace(/^verified-/, "")
    .replace(/^(afl|agentless|locagent|orcaloca)-(?:\1-)?/, "$1-")
    .replace(/^afl-loc-/, "afl-")
    .replace(/-func$/, "")
    .replace(/^results-round-/, "cosil-")
    .replace(/-loc-outputs$/, "")
    .replace(/-3-loc-qwen2\.5-32b$/, "");
}
