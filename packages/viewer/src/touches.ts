/**
 * What a tool call looked at (a touch, docs/definitions.md §12): a file, and the lines when the call says which. Read from the
 * call's arguments and its observation as the tools render it (`view_file`'s header
 * `path: lines A-B of N lines`, `search_code`'s `path:line:text` hits), so that a trajectory
 * of any loclab version, or an imported one, needs nothing but its own text.
 */
export interface Touch {
  /** Repository-relative path, as the agent's workspace named it. */
  path: string;
  /** 1-based inclusive line ranges; empty when the call names the file only (a tree, an edit). */
  lines: LineRange[];
  /** What the call did with it. */
  kind: "view" | "search" | "list" | "edit";
}

export interface LineRange {
  start: number;
  end: number;
}

const VIEW_HEADER = /^(\S+)(?: \([^\n]*?\))?(?: → \S+)?: lines (\d+)-(\d+) of /;
const SEARCH_HIT = /^([^\s:][^:\n]*):(\d+):/;
const MAX_TOUCHES_PER_CALL = 200;

/** The touches of one tool call (`name`, its arguments and observation); none for a call that names no file. */
export function touchesOfCall(call: {
  name: string;
  arguments: Record<string, unknown>;
  observation?: string | undefined;
}): Touch[] {
  const args = call.arguments;
  const path = typeof args.path === "string" ? stripDot(args.path) : undefined;
  switch (call.name) {
    case "view_file": {
      const header = call.observation?.split("\n", 1)[0] ?? "";
      const shown = VIEW_HEADER.exec(header);
      if (shown)
        return [{ path: shown[1]!, lines: [{ start: Number(shown[2]), end: Number(shown[3]) }], kind: "view" }];
      return [];
    }
    case "read_file": {
      if (!path) return [];
      const start = numberArg(args.start_line) ?? numberArg(args.start) ?? 1;
      const end = numberArg(args.end_line) ?? numberArg(args.end);
      const lines = call.observation?.split("\n").length ?? 0;
      return [{ path, lines: [{ start, end: end ?? start + Math.max(lines - 1, 0) }], kind: "view" }];
    }
    case "search_code":
      return searchTouches(call.observation ?? "");
    case "repo_tree":
    case "connected_tree":
      return path ? [{ path, lines: [], kind: "list" }] : [];
    case "edit_file":
    case "write_file":
      return path ? [{ path, lines: [], kind: "edit" }] : [];
    default:
      return path ? [{ path, lines: [], kind: "view" }] : [];
  }
}

/** search_code's hits grouped by file, each hit one line. */
function searchTouches(observation: string): Touch[] {
  const byPath = new Map<string, LineRange[]>();
  for (const line of observation.split("\n")) {
    const hit = SEARCH_HIT.exec(line);
    if (!hit) continue;
    const lines = byPath.get(hit[1]!) ?? [];
    if (lines.length === 0) byPath.set(hit[1]!, lines);
    const at = Number(hit[2]);
    lines.push({ start: at, end: at });
    if (byPath.size >= MAX_TOUCHES_PER_CALL) break;
  }
  return [...byPath].map(([path, lines]) => ({ path, lines, kind: "search" as const }));
}

function numberArg(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

function stripDot(path: string): string {
  return path.replace(/^\.\//, "").replace(/^\/testbed\//, "");
}
