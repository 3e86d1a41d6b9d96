import { goldFromPatch } from "@loclab/gold";
import { type GoldMentions, goldMentions } from "./gold-mentions.js";
import { knownFilesFromInstance } from "../known-files/known-files.js";
import { maskIssuePaths } from "./mask-issue-paths.js";
import { DEFAULT_MASK_LEVEL } from "./mask-types.js";
import type { KnownFiles, MaskLevel, MaskReport, MentionKind } from "./mask-types.js";

/**
 * What joins the problem statement and the hints while they are masked as one text, so that a
 * file gets one placeholder in both (no mention spans it: it holds blank lines and U+2029).
 * Replacement offsets of `MaskedInstance.report` count it.
 */
export const HINTS_GAP = "\n\n\u2029\n\n";

/** The fields of an instance that masking reads. */
export interface MaskableInstance {
  instance_id: string;
  problem_statement: string;
  patch: string;
  test_patch?: string | undefined;
  hints_text?: string | undefined;
}

export interface MaskBenchmarkOptions {
  level?: MaskLevel;
  /**
   * The repository's files known for an instance: the base commit's full file list when a
   * checkout is at hand (then only mentions of files that exist there are masked; the rest is
   * left alone and counted). Default `knownFilesFromInstance`: the files its patches touch and
   * their package-root patterns.
   */
  knownFilesOf?: (instance: MaskableInstance) => KnownFiles;
  /** Also mask `hints_text`, with the same placeholders as the problem statement. */
  includeHints?: boolean;
}

/** One instance masked: the new text, what was replaced, and what the text reveals before and after. */
export interface MaskedInstance {
  instanceId: string;
  maskedProblemStatement: string;
  /** With `includeHints`: the masked hints (the instance's `hints_text`, or "" when it has none). */
  maskedHintsText?: string;
  /** Offsets of the replacements are in the problem statement, then (with `includeHints`) `HINTS_GAP` and the hints. */
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
  /** File-path tokens that resolved to no known file, left as written (`MaskReport.leftAlone`), over all instances. */
  leftAlone: number;
  /** Whether hints were masked too. */
  includeHints: boolean;
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
export function maskBenchmark(
  instances: readonly MaskableInstance[],
  options: MaskBenchmarkOptions = {},
): { rows: MaskedInstance[]; summary: MaskBenchmarkSummary } {
  const level = options.level ?? DEFAULT_MASK_LEVEL;
  const includeHints = options.includeHints ?? false;
  const rows = instances.map((instance) => {
    const gold = goldFromPatch(instance.patch, { instanceId: instance.instance_id });
    const symbols = gold.symbols.map(({ name, path }) => ({ name, path }));
    const hints = instance.hints_text ?? "";
    // One text, so that a file has one placeholder in both; no path token crosses the gap.
    const whole = includeHints ? `${instance.problem_statement}${HINTS_GAP}${hints}` : instance.problem_statement;
    const masked = maskIssuePaths(whole, {
      knownFiles: (options.knownFilesOf ?? knownFilesFromInstance)(instance),
      level,
      ...(level === "symbols" ? { symbols } : {}),
    });
    const cut = masked.text.lastIndexOf(HINTS_GAP);
    const maskedProblemStatement = includeHints ? masked.text.slice(0, cut) : masked.text;
    const goldSymbols = [...new Set(symbols.map((symbol) => symbol.name))];
    const detect = (text: string) => goldMentions(text, { goldFiles: gold.files, symbols: goldSymbols });
    return {
      instanceId: instance.instance_id,
      maskedProblemStatement,
      ...(includeHints ? { maskedHintsText: masked.text.slice(cut + HINTS_GAP.length) } : {}),
      report: masked.report,
      goldFiles: gold.files,
      goldSymbols,
      before: detect(whole),
      after: detect(masked.text),
    };
  });
  const count = (pick: (row: MaskedInstance) => GoldMentions) =>
    Object.fromEntries(
      (["path", "module", "basename", "symbol"] as const).map((kind) => [
        kind,
        rows.filter((row) => pick(row)[kind]).length,
      ]),
    ) as Record<keyof GoldMentions, number>;
  const mentionsReplaced: Record<MentionKind, number> = { path: 0, module: 0, filename: 0, symbol: 0 };
  for (const row of rows) for (const replacement of row.report.replacements) mentionsReplaced[replacement.kind] += 1;
  return {
    rows,
    summary: {
      level,
      instances: rows.length,
      instancesWithMention: rows.filter((row) => row.report.replacements.length > 0).length,
      mentionsReplaced,
      leftAlone: rows.reduce((sum, row) => sum + row.report.leftAlone.length, 0),
      includeHints,
      revealingBefore: count((row) => row.before),
      revealingAfter: count((row) => row.after),
    },
  };
}
