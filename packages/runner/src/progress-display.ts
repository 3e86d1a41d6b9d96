import { type ProgressSnapshot, RunProgress, type RunEvent } from "./run-events.js";

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/**
 * The progress of a run as lines of text: a head line (done of keys, running, failed,
 * retries, elapsed, ETA), one line per cell (done / running / failed / retried) and one per
 * endpoint (health, in flight, attempts, turns, completion tokens/s). Pure.
 */
export function formatProgress(snapshot: ProgressSnapshot): string[] {
  const head =
    `${snapshot.done}/${snapshot.keys} done, ${snapshot.running} running, ${snapshot.failed} failed, ${snapshot.retries} retried` +
    `, ${duration(snapshot.elapsedMs)}${snapshot.etaMs !== undefined && snapshot.done < snapshot.keys ? `, ETA ${duration(snapshot.etaMs)}` : ""}${snapshot.paused ? " — PAUSED: every endpoint is down" : ""}`;
  const width = Math.max(4, ...snapshot.cells.map((cell) => cell.cell.length));
  const cells = snapshot.cells.map(
    (cell) =>
      `  ${cell.cell.padEnd(width)}  ${String(cell.done).padStart(4)}/${cell.keys} done  ${cell.running} running  ${cell.failed} failed  ${cell.retries} retried`,
  );
  const endpoints = snapshot.endpoints.map(
    (endpoint) =>
      `  [${endpoint.index}] ${endpoint.baseURL}  ${endpoint.health}  ${endpoint.inFlight} in flight  ${endpoint.attempts} attempts  ${endpoint.turns} turns  ${endpoint.tokensPerSecond.toFixed(1)} tok/s`,
  );
  return [head, ...cells, ...endpoints];
}

/** A one-line account of an event worth a line of its own (plain output), or undefined. */
export function formatEventLine(event: RunEvent): string | undefined {
  switch (event.type) {
    case "start":
      return `${event.resumed ? "resuming" : "starting"} ${event.dir}: ${event.keys} attempt keys (${event.cells.length} cells), ${event.done} already done, ${event.endpoints.filter((endpoint) => endpoint.health === "up").length} of ${event.endpoints.length} endpoints ready`;
    case "note":
      return event.message;
    case "attempt-end": {
      const r = event.record;
      const what = r.prediction
        ? `${r.outcome}: ${r.prediction.files.slice(0, 3).join(", ") || "(no file)"}`
        : `${r.outcome}${r.error ? `: ${r.error}` : ""}`;
      return `${event.cell} ${r.instanceId} #${r.attempt}: ${what} (${r.turns} turns, ${(r.wallMs / 1000).toFixed(1)} s${r.retries.length ? `, ${r.retries.length} retries` : ""})${event.requeued ? "; runs again on another endpoint" : ""}`;
    }
    case "endpoint-down":
      return `endpoint [${event.index}] ${event.baseURL} taken out: ${event.reason}`;
    case "endpoint-up":
      return `endpoint [${event.index}] ${event.baseURL} is back`;
    case "paused":
      return `paused: every endpoint is down (${event.reason}); probing them`;
    case "unpaused":
      return "resumed: an endpoint is back";
    case "stopping":
      return `stopping: ${event.detail}`;
    default:
      return undefined;
  }
}

export interface TerminalProgressOptions {
  /** Where to draw; default process.stderr. */
  stream?: NodeJS.WriteStream;
  /** Redraw period on a TTY; default 500 ms. Plain output prints the table every `plainEveryMs` (default 30 s). */
  refreshMs?: number;
  plainEveryMs?: number;
}

/**
 * A run observer that draws the progress on a terminal: on a TTY a block of lines redrawn in
 * place (event lines scroll above it); otherwise plain lines, one per attempt and event, and
 * the table every 30 s, so logs stay readable. Returns the observer and `stop()`.
 */
export function terminalProgress(options: TerminalProgressOptions = {}): {
  onEvent: (event: RunEvent) => void;
  stop: () => void;
  progress: RunProgress;
} {
  const stream = options.stream ?? process.stderr;
  const tty = stream.isTTY === true;
  const progress = new RunProgress();
  let drawn = 0;
  const clear = () => {
    if (drawn > 0) stream.write(`\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    const lines = formatProgress(progress.snapshot()).map((line) =>
      line.slice(0, Math.max(20, (stream.columns ?? 120) - 1)),
    );
    clear();
    stream.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const timer = setInterval(
    () => (tty ? draw() : stream.write(`${formatProgress(progress.snapshot()).join("\n")}\n`)),
    tty ? (options.refreshMs ?? 500) : (options.plainEveryMs ?? 30_000),
  );
  timer.unref();
  let started = false;
  return {
    progress,
    onEvent: (event) => {
      progress.apply(event);
      if (event.type === "start") started = true;
      const line = formatEventLine(event);
      if (line === undefined) return;
      if (tty) {
        clear();
        stream.write(`${line}\n`);
        if (started) draw();
      } else stream.write(`${line}\n`);
    },
    stop: () => {
      clearInterval(timer);
      if (tty) draw();
      else if (started) stream.write(`${formatProgress(progress.snapshot()).join("\n")}\n`);
    },
  };
}

/** What a notebook display offers (tslab's `newDisplay()`): a text or HTML entry that each call overwrites. */
export interface UpdatableDisplay {
  text?(text: string): void;
  html?(html: string): void;
}

/**
 * A run observer for a notebook: keeps one display entry (tslab `newDisplay()`) showing the
 * progress table, rewritten at most every `refreshMs` (default 1 s) and at the end.
 */
export function notebookProgress(
  display: UpdatableDisplay,
  options: { refreshMs?: number } = {},
): { onEvent: (event: RunEvent) => void; progress: RunProgress } {
  const progress = new RunProgress();
  let last = 0;
  const render = () => {
    const text = formatProgress(progress.snapshot()).join("\n");
    if (display.html)
      display.html(
        `<pre>${text.replace(/[&<>]/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[ch] as string)}</pre>`,
      );
    else display.text?.(text);
  };
  return {
    progress,
    onEvent: (event) => {
      progress.apply(event);
      const now = Date.now();
      if (event.type === "end" || now - last >= (options.refreshMs ?? 1000)) {
        last = now;
        render();
      }
    },
  };
}
