import type { VllmServerSpec } from "./server-spec.js";

/** Where a launched server is, as the fleet's state file records it. */
export type ServerHandle =
  | { kind: "process"; pid: number }
  | { kind: "docker"; containerId: string; socketPath?: string };

/** A server that was started: enough to probe it, read its log and stop it, also from another process. */
export interface LaunchedServer {
  spec: VllmServerSpec;
  handle: ServerHandle;
  /** The server's output (process launcher: a file; Docker: the container's log). */
  logFile?: string;
  alive(): Promise<boolean>;
  /** The last lines of its output, for error messages. */
  logTail(lines?: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs` (default 30 s); resolves when it is gone. */
  stop(options?: { graceMs?: number }): Promise<void>;
}
