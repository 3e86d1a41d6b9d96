import type { RecordedToolCall } from "../model/trajectory.js";

/** The paths one tool call names, and those among them it creates. */
export interface ToolCallPaths {
  used: string[];
  created: string[];
}

/** An argument whose key says it is a path: path, file_path, file_name, filename, dir, directory… */
const PATH_KEY = /path|file|dir/i;
/** Tools that create what they are given (loclab write_file, SWE-agent create, str_replace_editor create). */
const CREATING_TOOL = /write|create/i;
/**
 * A path-like word of a command: at least one slash between name characters, optionally
 * starting with /, ./, ../ or ~/, and standing on its own (after a space, quote, =, (, :, ,
 * or a shell operator). URLs do not match (the "//" after the scheme has no name between).
 */
const PATH_WORD = /(?:^|[\s'"`=(:,;|&<>])((?:\/|\.{1,2}\/|~\/)?[\w.@+-]+(?:\/[\w.@+-]*)+)/g;
/** Targets a shell command writes: `> x`, `>> x`, `tee [-a] x`, `touch x`, `mkdir [-p] x`. */
const WRITE_TARGETS = [
  /(?:^|[^>&\d])>{1,2}\s*['"]?([^\s'";|&<>()]+)/g,
  /\btee\s+(?:-a\s+)?['"]?([^\s'";|&<>()]+)/g,
  /\btouch\s+['"]?([^\s'";|&<>()]+)/g,
  /\bmkdir\s+(?:-p\s+)?['"]?([^\s'";|&<>()]+)/g,
];
/**
 * A text each of WRITE_TARGETS needs to match: most commands hold none, and a substring test
 * is cheaper than running the expression over the command (the patterns stay the definition).
 */
const WRITE_TARGET_NEEDLES = [">", "tee", "touch", "mkdir"];
/** `cp … x` / `mv … x`: the last word is the target. */
const COPY_MOVE = /\b(?:cp|mv)\s+(?:-\w+\s+)*[^\s;|&]+\s+['"]?([^\s'";|&<>()]+)/g;

function strip(word: string): string {
  return word.replace(/^['"`]+|['"`,;:)]+$/g, "");
}

/**
 * The paths a tool call names (issue 8, "bad prefix"): string arguments under a path-like key,
 * and path-like words of a `command` argument (a shell action, a SWE-agent command line); and
 * which of them the call creates (write/create tools; shell redirect, tee, touch, mkdir, cp/mv
 * targets; SWE-agent `create x`). A word needs a slash to count as a path, so `ls` or `*.py`
 * do not. Heuristic by nature: a path inside a script's text counts as used.
 *
 * @example pathsInToolCall({ name: "bash", arguments: { command: "cat /workspace/src/a.py > out/b.txt" } })
 *          // { used: ["/workspace/src/a.py", "out/b.txt"], created: ["out/b.txt"] }
 */
export function pathsInToolCall(call: RecordedToolCall): ToolCallPaths {
  const used = new Set<string>();
  const created = new Set<string>();
  const creates = CREATING_TOOL.test(call.name);
  for (const [key, value] of Object.entries(call.arguments)) {
    if (typeof value !== "string") continue;
    if (key === "command") {
      // Every path word has a slash, and cp/mv need their name: skipped when the text is absent.
      if (value.includes("/")) for (const match of value.matchAll(PATH_WORD)) used.add(strip(match[1] as string));
      WRITE_TARGETS.forEach((pattern, index) => {
        if (value.includes(WRITE_TARGET_NEEDLES[index] as string))
          for (const match of value.matchAll(pattern)) created.add(strip(match[1] as string));
      });
      if (value.includes("cp") || value.includes("mv"))
        for (const match of value.matchAll(COPY_MOVE)) created.add(strip(match[1] as string));
      const create = /^create\s+(\S+)/.exec(value.trim());
      if (create) created.add(strip(create[1] as string));
    } else if (PATH_KEY.test(key) && value.trim() !== "" && !value.includes("\n")) {
      used.add(value.trim());
      if (creates) created.add(value.trim());
    }
  }
  for (const path of created) if (path.includes("/")) used.add(path);
  return { used: [...used].filter((p) => p !== ""), created: [...created].filter((p) => p !== "") };
}
