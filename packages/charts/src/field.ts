/**
 * How a chart option names a data field.
 *
 * A bare string is the common case (`x: "repo"`); the object form adds an axis or
 * legend title and overrides the measurement type, e.g. when a numeric column such
 * as `goldFiles` should be read as ordered categories rather than a continuous scale.
 */
export type FieldType = "nominal" | "quantitative" | "ordinal";

export interface FieldSpec {
  /** Property name in each data row. */
  readonly field: string;
  /** Axis or legend title; defaults to the field name (not Vega-Lite's "Sum of …"). */
  readonly title?: string;
  /** Measurement type; each builder picks a sensible default per channel. */
  readonly type?: FieldType;
}

export type FieldOption = string | FieldSpec;

/** A field option with every property filled in. */
export interface ResolvedField {
  readonly field: string;
  readonly title: string;
  readonly type: FieldType;
}

/** Fill in the defaults of a field option. */
export function resolveField(option: FieldOption, defaultType: FieldType): ResolvedField {
  const spec: FieldSpec = typeof option === "string" ? { field: option } : option;
  if (spec.field.length === 0) throw new Error("chart field name must not be empty");
  return { field: spec.field, title: spec.title ?? spec.field, type: spec.type ?? defaultType };
}
