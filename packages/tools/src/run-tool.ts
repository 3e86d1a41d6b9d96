import { type ConnectedTreeResult, connectedTree, renderConnectedTree } from "./connected-tree.js";
import { type RepoTreeResult, renderRepoTree, repoTree } from "./repo-tree.js";
import { type SearchCodeResult, renderSearchCode, searchCode } from "./search-code.js";
import { ToolError, type ToolErrorCode } from "./tool-error.js";
import { TOOL_INPUT_SCHEMAS, TOOL_NAMES, type ToolName } from "./tool-schemas.js";
import { type ViewFileResult, renderViewFile, viewFile } from "./view-file.js";
import type { Workspace } from "./workspace.js";

/** A tool call as a model emits it: the tool's name and its arguments (a JSON string or an object). */
export interface ToolCall {
  name: string;
  arguments: string | unknown;
}

export type ToolResult = ViewFileResult | SearchCodeResult | RepoTreeResult | ConnectedTreeResult;

/**
 * What a call gave: the structured result and its text rendering, or an error the model can
 * act on. `malformed-call` covers an unknown tool name, arguments that are not JSON, and
 * arguments that do not fit the tool's schema (the message lists each problem).
 */
export type ToolOutcome =
  | { ok: true; name: ToolName; result: ToolResult; text: string }
  | { ok: false; name: string; error: { code: ToolErrorCode | "malformed-call"; message: string }; text: string };

/**
 * Runs one tool call against a workspace: parses and validates the arguments (zod), runs
 * the tool, renders the result. Expected failures (`ToolError`: refusals, missing files,
 * binary files) come back as `ok: false` with the message as the observation text; any
 * other exception is a bug and propagates. `maxHits` above `limits.searchMaxHits` is lowered
 * to it. No tool writes, spawns a process or reaches the network.
 */
export async function runTool(workspace: Workspace, call: ToolCall): Promise<ToolOutcome> {
  const failure = (code: ToolErrorCode | "malformed-call", message: string): ToolOutcome => ({
    ok: false,
    name: call.name,
    error: { code, message },
    text: `Error: ${message}\n`,
  });
  if (!(TOOL_NAMES as string[]).includes(call.name)) {
    return failure(
      "malformed-call",
      `unknown tool ${JSON.stringify(call.name)}; the tools are ${TOOL_NAMES.join(", ")}`,
    );
  }
  const name = call.name as ToolName;
  let args: unknown = call.arguments;
  if (typeof args === "string") {
    try {
      args = args.trim() === "" ? {} : JSON.parse(args);
    } catch (error) {
      return failure("malformed-call", `the arguments of ${name} are not valid JSON: ${(error as Error).message}`);
    }
  }
  const parsed = TOOL_INPUT_SCHEMAS[name].safeParse(args ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.length > 0 ? issue.path.join(".") : "arguments"}: ${issue.message}`,
    );
    return failure("malformed-call", `the arguments of ${name} do not fit its schema: ${problems.join("; ")}`);
  }
  try {
    switch (name) {
      case "view_file": {
        const result = await viewFile(workspace, parsed.data as Parameters<typeof viewFile>[1]);
        return { ok: true, name, result, text: renderViewFile(result) };
      }
      case "search_code": {
        const input = parsed.data as Parameters<typeof searchCode>[1];
        const maxHits =
          input.maxHits === undefined ? undefined : Math.min(input.maxHits, workspace.limits.searchMaxHits);
        const result = await searchCode(workspace, { ...input, ...(maxHits !== undefined ? { maxHits } : {}) });
        return { ok: true, name, result, text: renderSearchCode(result) };
      }
      case "repo_tree": {
        const result = await repoTree(workspace, parsed.data as Parameters<typeof repoTree>[1]);
        return { ok: true, name, result, text: renderRepoTree(result) };
      }
      case "connected_tree": {
        const result = await connectedTree(workspace, parsed.data as Parameters<typeof connectedTree>[1]);
        return { ok: true, name, result, text: renderConnectedTree(result) };
      }
    }
  } catch (error) {
    if (error instanceof ToolError) return failure(error.code, error.message);
    throw error;
  }
}
