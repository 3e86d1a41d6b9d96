import type { ObservedRead } from "./observed-read.js";
import { repositoryPath } from "./shell-reads.js";

/** SWE-agent's window header: `[File: /owner__name/path (N lines total)]`. */
const FILE_HEADER = /^\[File: (.+?) \((\d+) lines total\)\]$/m;
/** A numbered window line: `123:text`. */
const WINDOW_LINE = /^(\d+):(.*)$/;
/** `search_file`'s hits: `Line 123:text`. */
const SEARCH_LINE = /^Line (\d+):(.*)$/;
/** `search_file`'s header: `Found 3 matches for "x" in /owner__name/path:`. */
const SEARCH_HEADER = /^Found \d+ matches for ".*" in (\/.+):$/m;

/** SWE-agent commands whose observation is a window of a file the agent did not write. */
const WINDOW_COMMANDS = new Set(["open", "goto", "scroll_up", "scroll_down", "search_file"]);

/**
 * Reads recognised in one SWE-agent (0.x ACI) tool call (docs/definitions.md §5): the editor's
 * `open`, `goto`, `scroll_up`, `scroll_down` show a numbered window under a
 * `[File: … (N lines total)]` header, and exactly the numbered lines are the read; `search_file`
 * shows `Line N:text` hits of one file. The path is repository-relative after the task's
 * root (`/owner__name`). `create` and `edit` windows are the agent's own text, not reads.
 */
export function editorReads(name: string, observation: string | undefined, step: number, root: string): ObservedRead[] {
  if (!WINDOW_COMMANDS.has(name) || observation === undefined) return [];
  const header = FILE_HEADER.exec(observation) ?? SEARCH_HEADER.exec(observation);
  if (!header) return [];
  const path = repositoryPath((header[1] as string).trim(), root);
  if (!path) return [];
  const pattern = name === "search_file" ? SEARCH_LINE : WINDOW_LINE;
  const lines = new Map<number, string>();
  for (const text of observation.split("\n")) {
    const match = pattern.exec(text);
    if (match) lines.set(Number(match[1]), match[2] as string);
  }
  if (lines.size === 0) return [];
  const numbers = [...lines.keys()];
  return [{ path, startLine: Math.min(...numbers), endLine: Math.max(...numbers), lines, via: name, step }];
}
