// Find the failing cells of an executed notebook (written by nbconvert --allow-errors).
//
// A cell failed when nbclient_status_hook.py recorded `metadata.loclab.status == "error"`
// (tslab's only failure signal), or when it has an "error" output (what other kernels
// send). The error text is the cell's "error" outputs plus its stderr stream: tslab
// prints both thrown errors and TypeScript diagnostics there.

const ANSI = /\u001b\[[0-9;]*m/g;

/** nbformat stores multi-line strings either as a string or as a list of lines. */
function text(value) {
  return Array.isArray(value) ? value.join("") : String(value ?? "");
}

/**
 * @param {{ cells: Array<{ cell_type: string, source: string | string[], outputs?: any[], metadata?: any }> }} notebook
 * @returns {{ failures: Array<{ cellNumber: number, source: string, error: string }>, aborted: number[], statusRecorded: boolean }}
 *   `cellNumber` counts all cells from 1, as Jupyter shows them; `aborted` lists cells
 *   tslab skipped after a failure; `statusRecorded` is false if the hook did not run.
 */
export function findFailedCells(notebook) {
  const failures = [];
  const aborted = [];
  let statusRecorded = false;
  notebook.cells.forEach((cell, index) => {
    if (cell.cell_type !== "code") return;
    const status = cell.metadata?.loclab?.status;
    if (status !== undefined) statusRecorded = true;
    if (status === "abort") aborted.push(index + 1);
    const outputs = cell.outputs ?? [];
    const errorOutputs = outputs.filter((output) => output.output_type === "error");
    if (status !== "error" && errorOutputs.length === 0) return;
    const parts = [
      ...errorOutputs.map((output) => [`${output.ename}: ${output.evalue}`, ...(output.traceback ?? [])].join("\n")),
      ...outputs
        .filter((output) => output.output_type === "stream" && output.name === "stderr")
        .map((output) => text(output.text)),
    ];
    const error = parts.join("\n").replace(ANSI, "").trim() || "(the kernel reported an error but printed no message)";
    failures.push({ cellNumber: index + 1, source: text(cell.source), error });
  });
  return { failures, aborted, statusRecorded };
}

/**
 * Human-readable report of one failure, shortened for a terminal.
 * @param {{ cellNumber: number, source: string, error: string }} failure
 */
export function formatFailure(failure, { sourceLines = 5, errorLines = 30 } = {}) {
  const clip = (value, max) => {
    const lines = value.replace(/\s+$/, "").split("\n");
    return lines.length <= max ? lines : [...lines.slice(0, max), `… (${lines.length - max} more lines)`];
  };
  return [
    `  cell ${failure.cellNumber}:`,
    ...clip(failure.source, sourceLines).map((line) => `    | ${line}`),
    "  error:",
    ...clip(failure.error, errorLines).map((line) => `    ${line}`),
  ].join("\n");
}
