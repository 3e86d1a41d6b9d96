# nbconvert config loaded by scripts/run-notebooks.mjs (`--config` this file).
#
# Why: tslab reports a failed cell only through execute_reply.status == "error"; it
# sends no "error" output (the message goes to the cell's stderr stream), and a cell
# that merely warns also writes to stderr. nbclient does not store the reply status in
# the executed notebook, so we record it in each code cell's metadata:
#   cell.metadata.loclab.status = "ok" | "error" | "abort"
# ("abort": tslab cancels the cells queued right after a failure).
# scripts/run-notebooks.mjs reads it back to find the failing cell.


def _record_reply_status(cell, cell_index, execute_reply):
    status = (execute_reply or {}).get("content", {}).get("status", "unknown")
    cell.metadata.setdefault("loclab", {})["status"] = status


c.ExecutePreprocessor.on_cell_executed = _record_reply_status  # noqa: F821 (c is injected by traitlets)
