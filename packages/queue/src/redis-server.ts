import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, openSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServerOptions {
  /** Its data folder (AOF, pid file, log); default a new temporary folder. Kept across `restart`. */
  dir?: string;
  /** Default a free port on 127.0.0.1. */
  port?: number;
  /** Default `redis-server` on PATH (Debian's `redis-server` package: /usr/bin/redis-server). */
  executable?: string;
}

/** A redis-server this process started: its URL, and stop/restart by its PID. */
export interface RedisServer {
  url: string;
  port: number;
  dir: string;
  pid: number;
  /** SIGTERM (Redis writes its AOF and exits), waited for; SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** `stop`, then the same server again on the same port and data folder (what a restart of the service does). */
  restart(options?: { downMs?: number }): Promise<void>;
  /** SIGKILL: no shutdown at all (the AOF keeps what was fsynced: `appendfsync always` here, so everything acknowledged). */
  kill(): Promise<void>;
}

/**
 * Starts Debian's redis-server for tests, benchmarks and single-machine use, with the settings a
 * queue needs (docs/guide/distributed-runs.md): bound to 127.0.0.1 only, its own port and data
 * folder, AOF on with `appendfsync always` (an acknowledged job or result survives a kill of
 * Redis itself), no RDB snapshots, `maxmemory-policy noeviction` (BullMQ refuses to run on an
 * evicting Redis: a job evicted is a job lost), no daemonizing (the PID is this child's).
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const executable = options.executable ?? "redis-server";
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "loclab-redis-")));
  await mkdir(dir, { recursive: true });
  const port = options.port ?? (await freePort());
  const url = `redis://127.0.0.1:${port}`;
  let child = await launch(executable, dir, port);
  const server: RedisServer = {
    url,
    port,
    dir,
    pid: child.pid ?? 0,
    stop: () => stopChild(child),
    restart: async ({ downMs = 0 } = {}) => {
      await stopChild(child);
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      child = await launch(executable, dir, port);
      server.pid = child.pid ?? 0;
    },
    kill: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
  return server;
}

async function launch(executable: string, dir: string, port: number): Promise<ChildProcess> {
  const logFile = join(dir, "redis.log");
  const out = openSync(logFile, "a");
  const child = spawn(
    executable,
    [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--appendfsync",
      "always",
      "--save",
      "",
      "--maxmemory-policy",
      "noeviction",
      "--daemonize",
      "no",
      "--protected-mode",
      "yes",
      "--pidfile",
      join(dir, "redis.pid"),
    ],
    { stdio: ["ignore", out, out] },
  );
  const failed = new Promise<Error>((resolve) => {
    child.once("error", (error) =>
      resolve(
        new Error(
          `${executable} could not start (${error.message}); on Debian: apt-get install --no-install-recommends redis-server`,
        ),
      ),
    );
    child.once("exit", (code, signal) => {
      const tail = existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n").slice(-5).join("\n") : "";
      resolve(
        new Error(`redis-server exited (${signal ?? `code ${code}`}) before answering on port ${port}:\n${tail}`),
      );
    });
  });
  const deadline = Date.now() + 30_000;
  while (!(await answersPing(port))) {
    const early = await Promise.race([
      failed,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50)),
    ]);
    if (early) throw early;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`redis-server did not answer on 127.0.0.1:${port} within 30 s (log: ${logFile})`);
    }
  }
  return child;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A PING in RESP, answered +PONG (and not -LOADING while the AOF is read back). */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let answer = "";
    socket.setTimeout(1000);
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => {
      answer += data.toString();
      if (answer.includes("\r\n")) {
        socket.destroy();
        resolve(answer.startsWith("+PONG"));
      }
    });
    socket.on("error", () => resolve(false));
    socket.on("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}
