import { functionParameters } from "@loclab/tools";
import { z } from "zod";

/**
 * The fixer's tools as the model calls them (FGL's harness: run_command, read_file, edit_file,
 * write_file, get_status, submit_patch), their JSON arguments checked by these schemas. Caps
 * are not in the schemas: the toolbox applies the run's limits and says which one cut.
 */
export const FIXER_TOOL_SCHEMAS = {
  run_command: z
    .object({
      command: z.string().min(1).describe("A bash command, run in the repository's directory."),
    })
    .strict(),
  read_file: z
    .object({
      path: z.string().min(1).describe("The file, relative to the repository's directory or absolute."),
      start_line: z.number().int().min(1).optional().describe("First line to return (1-based). Default 1."),
      end_line: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe("Last line to return (1-based, inclusive). Default: as many as the caps allow."),
    })
    .strict(),
  edit_file: z
    .object({
      path: z.string().min(1).describe("The file to edit."),
      old_text: z.string().describe("Text that occurs exactly once in the file, whitespace included."),
      new_text: z.string().describe("What replaces it."),
    })
    .strict(),
  write_file: z
    .object({
      path: z.string().min(1).describe("The file to write (created with its folders, or replaced whole)."),
      content: z.string().describe("The whole new content."),
    })
    .strict(),
  get_status: z.object({}).strict(),
  submit_patch: z.object({}).strict(),
  localizer: z
    .object({
      focus: z.string().min(1).optional().describe("What to look for, added to the issue (optional)."),
    })
    .strict(),
} as const;

export type FixerTool = keyof typeof FIXER_TOOL_SCHEMAS;
export const FIXER_TOOLS = Object.keys(FIXER_TOOL_SCHEMAS) as FixerTool[];

export const FIXER_TOOL_DESCRIPTIONS: Record<FixerTool, string> = {
  run_command:
    "Run a bash command in the repository (no network). stdout and stderr are each cut to their first characters; a command past its time limit is killed with its children.",
  read_file:
    "Read lines of a text file. The answer says which lines it holds and how many the file has; ask again from the next line for more.",
  edit_file: "Replace one exact occurrence of old_text in a file with new_text.",
  write_file: "Write a whole file (new, or replaced).",
  get_status: "The repository's current changes, as a diff against the base commit (not counted against the budget).",
  submit_patch: "Submit the current changes as the fix and end (not counted).",
  localizer:
    "Ask the localizer, a second agent in a fresh session, where the issue is: it answers with at most 8 locations and their code. Its model turns count against your budget.",
};

/** The single agent's tools (FGL); the two-agent fixer adds `localizer`. */
export const SINGLE_AGENT_TOOLS: readonly FixerTool[] = [
  "run_command",
  "read_file",
  "edit_file",
  "write_file",
  "get_status",
  "submit_patch",
];

export interface FixerToolDefinition {
  name: FixerTool;
  description: string;
  parameters: Record<string, unknown>;
}

/** The tools for a chat request's `tools` field: name, description and the JSON Schema of the arguments. */
export function fixerToolDefinitions(options: { twoAgents?: boolean } = {}): FixerToolDefinition[] {
  // Derived once (zod's JSON Schema conversion costs milliseconds; every attempt asks); copies handed out.
  definitions ??= FIXER_TOOLS.map((name) => ({
    name,
    description: FIXER_TOOL_DESCRIPTIONS[name],
    parameters: functionParameters(FIXER_TOOL_SCHEMAS[name]),
  }));
  const names = options.twoAgents ? FIXER_TOOLS : SINGLE_AGENT_TOOLS;
  return structuredClone(definitions.filter((tool) => names.includes(tool.name)));
}
let definitions: FixerToolDefinition[] | undefined;
