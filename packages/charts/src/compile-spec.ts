import type { Spec as VegaSpec } from "vega";
import type { TopLevelSpec } from "vega-lite";
import { loadVegaLite } from "./load-renderers.js";
import type { RenderLog } from "./render-log.js";

/** Vega-Lite's mark types (v6), including composite marks. */
const MARK_TYPES: ReadonlySet<string> = new Set([
  "arc",
  "area",
  "bar",
  "image",
  "line",
  "point",
  "rect",
  "rule",
  "text",
  "tick",
  "trail",
  "circle",
  "square",
  "geoshape",
  "boxplot",
  "errorband",
  "errorbar",
]);

/** Vega-Lite's measurement types for encoding field definitions. */
const FIELD_TYPES: ReadonlySet<string> = new Set(["quantitative", "ordinal", "nominal", "temporal", "geojson"]);

/**
 * Compile a Vega-Lite spec to a Vega spec, turning bad input into an error that
 * says what is wrong.
 *
 * Vega-Lite does not validate against its JSON schema: an unknown mark type fails deep
 * inside the compiler with "Cannot read properties of undefined (reading 'filled')",
 * a misspelt field type with 'Invalid field type "undefined"'. In notebooks the
 * `TopLevelSpec` type does not catch these either (tslab resolves vega-lite's types to
 * `any`), so we check the cheap, common mistakes first and prefix every compiler error
 * with "invalid Vega-Lite spec".
 */
export async function compileToVega(spec: TopLevelSpec, log: RenderLog): Promise<VegaSpec> {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new Error(`invalid Vega-Lite spec: expected an object, got ${spec === null ? "null" : typeof spec}`);
  }
  const problem = findSpecProblem(spec, "spec");
  if (problem !== undefined) throw new Error(`invalid Vega-Lite spec: ${problem}`);
  const vegaLite = await loadVegaLite();
  try {
    return vegaLite.compile(spec, { logger: log.logger }).spec;
  } catch (error) {
    throw new Error(`invalid Vega-Lite spec: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}

/** First unknown mark or field type, searching layers and concatenations. */
function findSpecProblem(node: unknown, path: string): string | undefined {
  if (typeof node !== "object" || node === null) return undefined;
  const record = node as Record<string, unknown>;
  const mark = record["mark"];
  if (mark !== undefined) {
    const type = typeof mark === "object" && mark !== null ? (mark as Record<string, unknown>)["type"] : mark;
    if (typeof type !== "string" || !MARK_TYPES.has(type)) {
      return `unknown mark type "${String(type)}" at ${path}.mark (expected one of ${[...MARK_TYPES].join(", ")})`;
    }
  }
  const encoding = record["encoding"];
  if (typeof encoding === "object" && encoding !== null) {
    for (const [channel, definition] of Object.entries(encoding)) {
      const type =
        typeof definition === "object" && definition !== null
          ? (definition as Record<string, unknown>)["type"]
          : undefined;
      if (type !== undefined && (typeof type !== "string" || !FIELD_TYPES.has(type))) {
        return `unknown field type "${String(type)}" at ${path}.encoding.${channel}.type (expected one of ${[...FIELD_TYPES].join(", ")})`;
      }
    }
  }
  const children = ["layer", "concat", "hconcat", "vconcat"].flatMap((key) => {
    const value = record[key];
    return Array.isArray(value) ? value.map((child, index) => ({ child, at: `${path}.${key}[${index}]` })) : [];
  });
  for (const { child, at } of [...children, { child: record["spec"], at: `${path}.spec` }]) {
    const found = findSpecProblem(child, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
