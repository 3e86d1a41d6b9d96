/** One event of the engine's build or pull stream (`{"stream": …}`, `{"error": …}`, `{"aux": …}`). */
export interface BuildEvent {
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** What reading a build stream kept: the last lines, the first error, and what was dropped. */
export interface BuildStreamResult {
  /** The build's last `tailLines` lines of output. */
  tail: string[];
  /** The first `error` event's message, if any. */
  error?: string;
  /** Bytes of event lines over `maxLineBytes`, dropped without being parsed. */
  droppedBytes: number;
}

/**
 * Reads the engine's build stream (newline-separated JSON events) as it comes, holding at most
 * one event line of `maxLineBytes` and the last `tailLines` lines of output. dockerode's
 * `followProgress` keeps every event in an array until the build ends, so a build step that
 * prints without end (a repository's `setup.py`, a model's `RUN`) would cost the runner that
 * much memory; here a line over the cap is counted and dropped.
 */
export function readBuildStream(
  stream: NodeJS.ReadableStream,
  options: { tailLines?: number; maxLineBytes?: number; onEvent?: (event: BuildEvent) => void } = {},
): Promise<BuildStreamResult> {
  const tailLines = options.tailLines ?? 30;
  const maxLineBytes = options.maxLineBytes ?? 1 << 20;
  const tail: string[] = [];
  let error: string | undefined;
  let droppedBytes = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let dropping = false;
  const event = (line: Buffer) => {
    const text = line.toString("utf8").trim();
    if (text === "") return;
    let parsed: BuildEvent;
    try {
      parsed = JSON.parse(text) as BuildEvent;
    } catch {
      return;
    }
    if (parsed.error && error === undefined) error = parsed.error;
    if (typeof parsed.stream === "string") {
      tail.push(parsed.stream);
      if (tail.length > tailLines) tail.shift();
    }
    options.onEvent?.(parsed);
  };
  const take = (piece: Buffer, ends: boolean) => {
    if (!dropping && pendingBytes + piece.length <= maxLineBytes) {
      if (piece.length > 0) {
        pending.push(Buffer.from(piece));
        pendingBytes += piece.length;
      }
    } else {
      // Over the cap: this line is dropped whole, what was held of it included.
      droppedBytes += piece.length + (dropping ? 0 : pendingBytes);
      dropping = true;
      pending = [];
      pendingBytes = 0;
    }
    if (ends) {
      if (!dropping) event(Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
      dropping = false;
    }
  };
  return new Promise((resolve, reject) => {
    stream.on("data", (chunk: Buffer | string) => {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      let at = 0;
      for (let newline = bytes.indexOf(10, at); newline >= 0; newline = bytes.indexOf(10, at)) {
        take(bytes.subarray(at, newline), true);
        at = newline + 1;
      }
      if (at < bytes.length) take(bytes.subarray(at), false);
    });
    stream.on("error", reject);
    stream.on("end", () => {
      take(Buffer.alloc(0), true);
      resolve({ tail, ...(error !== undefined ? { error } : {}), droppedBytes });
    });
  });
}
