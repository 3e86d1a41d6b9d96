import { z } from "zod";

/**
 * The input of each tool as the model sends it (JSON arguments of a function call). Length
 * caps are not in the schemas: the tools enforce them from the workspace's limits, with a
 * message that names the limit.
 */
export const viewFileInputSchema = z
  .object({
    path: z
      .string()
      .min(1)
      .describe(
        "Path of the file, relative to the repository root. Matched fuzzily: exact, then ignoring case, then a unique path suffix, then the closest file name; the answer says which file was chosen.",
      ),
    start: z.number().int().min(1).optional().describe("First line to show (1-based). Default 1."),
    end: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        "Last line to show (1-based, inclusive). Default: as many lines as the caps allow (150 lines / 10,000 characters).",
      ),
  })
  .strict();

export const searchCodeInputSchema = z
  .object({
    query: z.string().min(1).describe("Literal text to find on one line (not a regular expression)."),
    ignoreCase: z.boolean().optional().describe("Ignore case. Default false (case-sensitive)."),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Only search files this glob selects, e.g. "*.py", "django/db", "tests/**/test_*.py", "!*.min.js". A glob without "/" matches file or folder names at any depth.',
      ),
    maxHits: z.number().int().min(1).optional().describe("Most matching lines to return. Default 50."),
  })
  .strict();

export const repoTreeInputSchema = z
  .object({
    path: z.string().optional().describe("Folder to list, relative to the repository root. Default: the root."),
    depth: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe("Levels to list below the folder. Default 2; deeper folders are summarized by their file count."),
    include: z.array(z.string().min(1)).optional().describe("Only list files some of these globs select."),
    exclude: z.array(z.string().min(1)).optional().describe("Leave out files any of these globs selects."),
    hideTests: z.boolean().optional().describe("Hide test files and folders. Default false."),
    hideDocs: z.boolean().optional().describe("Hide documentation (doc/, docs/, .rst, .md). Default false."),
    hideVendored: z
      .boolean()
      .optional()
      .describe("Hide vendored code (vendor/, third_party/, node_modules/, *.min.js). Default true."),
    hideHidden: z.boolean().optional().describe("Hide dot files and folders. Default true."),
  })
  .strict();

export const connectedTreeInputSchema = z
  .object({
    path: z.string().min(1).describe("A Python file, matched fuzzily like view_file's path."),
    depth: z.number().int().min(1).max(5).optional().describe("Import steps to follow in each direction. Default 1."),
    direction: z
      .enum(["both", "imports", "importedBy"])
      .optional()
      .describe('"imports": what the file imports; "importedBy": what imports it; default both.'),
  })
  .strict();

/** The four tools, by the names the model calls them. */
export const TOOL_INPUT_SCHEMAS = {
  view_file: viewFileInputSchema,
  search_code: searchCodeInputSchema,
  repo_tree: repoTreeInputSchema,
  connected_tree: connectedTreeInputSchema,
} as const;

export type ToolName = keyof typeof TOOL_INPUT_SCHEMAS;
export const TOOL_NAMES = Object.keys(TOOL_INPUT_SCHEMAS) as ToolName[];

export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  view_file:
    "Show a window of one file of the repository, with line numbers. The path is matched fuzzily and the answer names the file chosen, or lists the candidates.",
  search_code:
    "Find a literal string in the repository's text files. Returns path:line:text for each matching line, ordered by path then line, capped, with the count of hits cut.",
  repo_tree:
    "List the folder hierarchy of the repository or of one folder, to a depth, with filters (globs; hide tests, docs, vendored code, dot files) and counts of what is hidden.",
  connected_tree:
    "Show the Python import graph around a file: the repository files it imports and the files that import it, to a depth, plus its imports from outside the repository.",
};

/** A tool in the OpenAI function-calling format (`tools: [...]` of a chat completion request). */
export interface FunctionToolDefinition {
  type: "function";
  function: { name: ToolName; description: string; parameters: Record<string, unknown> };
}

/**
 * The JSON Schema of a tool's input (`z.toJSONSchema`, the input side: optional fields are
 * not required), without the `$schema` key and without the `maximum` zod adds for every
 * integer (2^53 − 1), which some servers reject.
 */
export function toolParametersSchema(name: ToolName): Record<string, unknown> {
  return functionParameters(TOOL_INPUT_SCHEMAS[name]);
}

/**
 * Any zod schema of a function tool's arguments as the `parameters` JSON Schema a chat request
 * sends (what `toolParametersSchema` gives for the four tools; the fixer's tools use it too).
 */
export function functionParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  return stripSafeIntegerMaximum(json) as Record<string, unknown>;
}

/** The four tools for an OpenAI-compatible `tools` request field, in a fixed order. */
export function toolDefinitions(): FunctionToolDefinition[] {
  // Derived once (zod's JSON Schema conversion costs milliseconds, and every attempt asks); copies handed out.
  definitionsCache ??= TOOL_NAMES.map((name) => ({
    type: "function",
    function: { name, description: TOOL_DESCRIPTIONS[name], parameters: toolParametersSchema(name) },
  }));
  return structuredClone(definitionsCache);
}
let definitionsCache: FunctionToolDefinition[] | undefined;

function stripSafeIntegerMaximum(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripSafeIntegerMaximum);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "maximum" && inner === Number.MAX_SAFE_INTEGER) continue;
    out[key] = stripSafeIntegerMaximum(inner);
  }
  return out;
}
