import { goldFromPatch } from "@loclab/gold";
import { type GoldMentions, goldMentions } from "./gold-mentions.js";
import { knownFilesFromInstance } from "../known-files/known-files.js";
import { maskIssuePaths } from "./mask-issue-paths.js";
import { DEFAULT_MASK_LEVEL } from "./mask-types.js";
import type { MaskLevel, MaskReport, MentionKind } from "./mask-types.js";

/** The fields of an instance that masking reads. */
export interface MaskableInstance {
  instance_id: string;
  problem_statement: string;
  patch: string;
  test_patch?: string | undefined;
}

/** One instance masked: the new text, what was replaced, and what the text reveals before and after. */
export interface MaskedInstance {
  instanceId: string;
  maskedProblemStatement: string;
  report: MaskReport;
  goldFiles: string[];
  /** Gold symbol names (approximate, from `@@` headers). */
  goldSymbols: string[];
  before: GoldMentions;
  after: GoldMentions;
}

export interface MaskBenchmarkSummary {
  level: MaskLevel;
  instances: number;
  /** Instances whose text had at least one replacement. */
  instancesWithMention: number;
  /** Replacements by kind over all instances. */
  mentionsReplaced: Record<MentionKind, number>;
  /** Instances whose text reveals each kind of gold mention, before and after masking. */
  revealingBefore: Record<keyof GoldMentions, number>;
  revealingAfter: Record<keyof GoldMentions, number>;
}

/**
 * Masks every issue of a benchmark at `level` (docs/definitions.md §4) with what is known without a
 * checkout (`knownFilesFromInstance`), and measures before and after what each text reveals
 * of its gold. Pure: the caller loads instances and writes results. An instance whose patch
 * does not parse throws (its gold is unknown), naming the instance.
 */
export function maskBenchmark(instances: readonly MaskableInstance[], options: { level?: MaskLevel } = {}): { rows: MaskedInstance[]; summary: MaskBenchmarkSummary } {
  const level = options.level ?? DEFAULT_MASK_LEVEL;
  const rows = instances.map((instance) => {
    const gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id });
    const symbols = gold.symbols.map(({ name, path }) => ({ name, path }));
    const masked = maskIssuePaths(instance.problem_statement, {
      knownFiles: knownFilesFromInstance(instance),
      level,
      ...(level === "symbols" ? { symbols } : {}),
    });
    const goldSymbols = [...new Set(symbols.map((symbol) => symbol.name))];
    const detect = (text: string) => goldMentions(text, { goldFiles: gold.files, symbols: goldSymbols });
    return {
      instanceId: instance.instance_id,
      maskedProblemStatement: masked.text,
      report: masked.report,
      goldFiles: gold.files,
      goldSymbols,
      before: detect(instance.problem_statement),
      after: detect(masked.text),
    };
  });
  const count = (pick: (row: MaskedInstance) => GoldMentions) =>
    Object.fromEntries((["path", "module", "basename", "symbol"] as const).map((kind) => [kind, rows.filter((row) => pick(row)[kind]).length])) as Record<keyof GoldMentions, number>;
  const mentionsReplaced: Record<MentionKind, number> = { path: 0, module: 0, filename: 0, symbol: 0 };
  for (const row of rows) for (const replacement of row.report.replacements) mentionsReplaced[replacement.kind] += 1;
  return {
    rows,
    summary: {
      level,
      instances: rows.length,
      instancesWithMention: rows.filter((row) => row.report.replacements.length > 0).length,
      mentionsReplaced,
      revealingBefore: count((row) => row.before),
      revealingAfter: count((row) => row.after),
    },
  };
}
