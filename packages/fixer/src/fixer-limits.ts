/**
 * The fixer's caps and budgets as FGL's evaluation harness has them (its paper's Table 5 and
 * Appendix B; docs/definitions.md): what a run uses unless its spec says otherwise.
 */
export interface FixerLimits {
  /** Counted tool calls (run_command, read_file, edit_file, write_file) per attempt. */
  callBudget: number;
  /** A budget note is appended to a tool result when this many counted calls or fewer remain… */
  warnWhenRemaining: number;
  /** …and only for a budget at least this large. */
  warnMinBudget: number;
  /** The attempt's wall time, enforced by the supervisor: then the current diff is the patch. */
  wallMs: number;
  /** One run_command's limit; its process group is killed then. */
  commandTimeoutMs: number;
  /** run_command's stdout and stderr are each cut to this many characters. */
  outputChars: number;
  /** read_file returns at most this many lines… */
  readLines: number;
  /** …and this many characters, whole lines only (a first line longer than this is cut, and said so). */
  readChars: number;
}

/** FGL's single-agent fixer: 36 counted calls, 8 minutes. */
export const FGL_SINGLE_AGENT: FixerLimits = {
  callBudget: 36,
  warnWhenRemaining: 10,
  warnMinBudget: 20,
  wallMs: 8 * 60_000,
  commandTimeoutMs: 300_000,
  outputChars: 5_000,
  readLines: 150,
  readChars: 10_000,
};

/** FGL's two-agent fixer: the localizer's calls come out of one shared budget of 44. */
export const FGL_TWO_AGENTS: FixerLimits = { ...FGL_SINGLE_AGENT, callBudget: 44 };
