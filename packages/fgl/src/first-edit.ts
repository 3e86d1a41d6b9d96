import type { RecordedToolCall, Trajectory } from "@loclab/analysis";
import { writesFiles } from "./shell-reads.js";

/** SWE-agent and editor tools that change a file. */
const EDIT_TOOLS = new Set(["edit", "insert", "append", "str_replace", "write_file", "apply_patch"]);

/**
 * Whether one tool call edits the repository (docs/definitions.md §5, "cut at the first edit"):
 * an editor command (`edit`, `insert`, `str_replace_editor` other than `view`/`create`), or a
 * shell command that writes files (`sed -i`, a redirection, `tee`, a here-document, a Python
 * script writing) and names a file the final patch changes. A script the agent writes to a new
 * file of its own (`cat <<EOF > reproduce.py`) is not an edit: it names no patched file. An
 * attempted edit counts even when the harness refused it: the agent had decided where to edit.
 */
export function isEdit(call: RecordedToolCall, patchedFiles: readonly string[]): boolean {
  if (EDIT_TOOLS.has(call.name)) return true;
  if (call.name === "str_replace_editor") {
    const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
    return !/^\s*(view|create)\b/.test(command) && !/"command"\s*:\s*"(view|create)"/.test(command);
  }
  if (call.name !== "bash") return false;
  const command = typeof call.arguments.command === "string" ? call.arguments.command : "";
  const writes = writesFiles(command) || /\.write(_text)?\(|\bopen\([^)]*['"][wa]\+?['"]/.test(command);
  if (!writes) return false;
  return patchedFiles.some((path) => command.includes(path) || mentionsBasename(command, path));
}

function mentionsBasename(command: string, path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (name === "__init__.py") return false; // too common to tell one package from another
  return new RegExp(`(^|[\\s/'"])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[\\s'"])`).test(command);
}

/** The index of the first step with an editing call, or undefined when the trajectory never edits. */
export function firstEditStep(
  trajectory: Pick<Trajectory, "steps">,
  patchedFiles: readonly string[],
): number | undefined {
  for (const step of trajectory.steps) if (step.toolCalls.some((call) => isEdit(call, patchedFiles))) return step.index;
  return undefined;
}
