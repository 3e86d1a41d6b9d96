import { z } from "zod";
import type { ToolDefinition } from "./chat-message.js";

/** The name of the final-answer tool. */
export const SUBMIT_LOCALIZATION = "submit_localization";

const text = (description: string) => z.string().min(1).describe(description);

/**
 * The arguments of `submit_localization`: up to `maxLocations` line-span locations and the
 * five-field finding (docs/definitions.md §1). The model-facing JSON Schema is derived from this.
 */
export function submissionSchema(maxLocations: number) {
  const location = z
    .object({
      path: text("File path relative to the repository root (matched fuzzily, like view_file)."),
      startLine: z.number().int().min(1).describe("First line of the span (1-based)."),
      endLine: z.number().int().min(1).describe("Last line of the span (1-based, inclusive)."),
      role: z.enum(["edit", "read"]).describe('"edit": the fix changes it; "read": context the fixer needs.'),
      symbol: z.string().min(1).optional().describe("The function or Class.method the span covers."),
    })
    .strict()
    .refine((loc) => loc.startLine <= loc.endLine, {
      message: "startLine must not be greater than endLine",
      path: ["endLine"],
    });
  return z
    .object({
      locations: z.array(location).min(1).max(maxLocations).describe(`Locations, best first; at most ${maxLocations}.`),
      finding: z
        .object({
          locationExplanation: text("Why these locations: what in the code ties them to the issue."),
          rootCause: text("The defect itself, in terms of the code's behaviour."),
          solutionIdea: text("How a fix would go, concretely enough for a repair agent to act on."),
          dependencies: text("Other code that the fix touches or must stay consistent with."),
          testingImpact: text("Which tests exercise the change, or should be added."),
        })
        .strict(),
    })
    .strict();
}

export type Submission = z.output<ReturnType<typeof submissionSchema>>;

/** `submit_localization` for the `tools` field, its parameters from `submissionSchema`. */
export function submitLocalizationTool(maxLocations: number): ToolDefinition {
  // Derived once per limit (zod's JSON Schema conversion costs milliseconds, and every attempt asks); copies handed out.
  let known = submitToolCache.get(maxLocations);
  if (!known) submitToolCache.set(maxLocations, (known = deriveSubmitTool(maxLocations)));
  return structuredClone(known);
}
const submitToolCache = new Map<number, ToolDefinition>();

function deriveSubmitTool(maxLocations: number): ToolDefinition {
  const parameters = z.toJSONSchema(submissionSchema(maxLocations), { io: "input" }) as Record<string, unknown>;
  delete parameters.$schema;
  return {
    name: SUBMIT_LOCALIZATION,
    description: "Hand in the final answer: the locations to fix and the structured finding. Ends the run.",
    parameters: withoutSafeIntegerMaximum(parameters) as Record<string, unknown>,
  };
}

/**
 * The most files a constrained submission names by enumeration; past it the paths stay free
 * strings (a grammar over tens of thousands of alternatives costs the server more per token
 * than a wrong path costs the run). SWE-bench's largest repositories have about 7,000 files.
 */
export const MAX_CONSTRAINED_PATHS = 20_000;

/**
 * `submit_localization` whose constrained decoding (tool-call-decoding.ts) can only name files
 * of the repository: each location's `path` an enumeration of `paths`, the workspace's own
 * (the shuffled names under shuffling). A location that names no file is the commonest way a
 * small model's final answer fails (`invalid_final`); the model is told the same schema as
 * before. Unchanged past {@link MAX_CONSTRAINED_PATHS} files. Pure.
 */
export function withRepositoryPaths(tool: ToolDefinition, paths: readonly string[]): ToolDefinition {
  if (paths.length === 0 || paths.length > MAX_CONSTRAINED_PATHS || !tool.parameters) return tool;
  const parameters = structuredClone(tool.parameters) as {
    properties?: { locations?: { items?: { properties?: { path?: Record<string, unknown> } } } };
  };
  const path = parameters.properties?.locations?.items?.properties?.path;
  if (!path) throw new Error(`${tool.name}: its parameters have no locations[].path to constrain`);
  const { minLength: _min, maxLength: _max, type: _type, ...kept } = path;
  parameters.properties!.locations!.items!.properties!.path = { ...kept, enum: [...paths] };
  return { ...tool, constrainedParameters: parameters as Record<string, unknown> };
}

/** zod adds `maximum: 2^53 − 1` to every integer; some servers reject it (as in @loclab/tools). */
function withoutSafeIntegerMaximum(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerMaximum);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, inner]) => !(key === "maximum" && inner === Number.MAX_SAFE_INTEGER))
      .map(([key, inner]) => [key, withoutSafeIntegerMaximum(inner)]),
  );
}
