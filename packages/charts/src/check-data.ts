/**
 * Fail fast when a builder is pointed at a field the rows do not have.
 *
 * Vega-Lite does not complain about an unknown field: it silently draws an empty or
 * one-bar chart, which is easy to miss in a notebook. Checking at build time turns a
 * typo such as `x: "repos"` into an error that names the field and the chart.
 * Empty data is allowed (an empty chart is a legitimate result).
 */
export function assertFieldsPresent(chart: string, data: readonly object[], fields: readonly string[]): void {
  if (data.length === 0) return;
  for (const field of fields) {
    if (!data.some((row) => Object.prototype.hasOwnProperty.call(row, field))) {
      const known = Object.keys(data[0] ?? {}).join(", ");
      throw new Error(`${chart}: field "${field}" is not in any data row (fields of the first row: ${known})`);
    }
  }
}
