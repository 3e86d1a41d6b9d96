/**
 * Code an agent saw before its first edit, as recognised from one tool call (docs/definitions.md
 * §5, "the teacher's localization"). Lines are 1-based in the file at base commit.
 *
 * A read knows its line range when the command or the observation says it (`sed -n '10,40p'`,
 * SWE-agent's numbered window); `fromEnd` when it is the file's last N lines (`tail -n N`), which
 * needs the file's length; neither when only the code text is known (AutoCodeRover's search
 * results), which is found in the file at base commit. `lines` holds the text of each line the
 * observation showed, when it shows them exactly.
 */
export interface ObservedRead {
  /** Repository-relative path. */
  path: string;
  startLine?: number;
  endLine?: number;
  /** The file's last N lines (`tail -n N`). */
  fromEnd?: number;
  /** Line number → the line's text as the observation showed it (without its newline). */
  lines?: Map<number, string>;
  /** The symbol the read named (AutoCodeRover's search APIs: `Class.method`, `function`, `Class`). */
  symbol?: string;
  /** Code text without line numbers, to be found in the file (AutoCodeRover's `<code>`). */
  code?: string;
  /** How the read was recognised: `cat`, `sed -n`, `nl`, `head`, `tail`, `grep -n`, `open`, `search_class`, … */
  via: string;
  /** The step of the trajectory (0-based). */
  step: number;
}
