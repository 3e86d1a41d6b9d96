// A Docker engine for the tests: Debian's docker.io, started here with the flags in
// ../shared/docs/toolchain.md (no bridge, no iptables, no IP forwarding; its own data root,
// exec root, pid file and socket), stopped by its PID. An engine already given in DOCKER_HOST
// is used as it is.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";

function ping(socketPath) {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: "/_ping", timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on("error", () => resolve(false));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

/** @returns {Promise<{ env: Record<string, string>, stop: () => Promise<void>, started: boolean }>} */
export async function startDockerd({ log = console.error } = {}) {
  const given = process.env.DOCKER_HOST;
  if (given?.startsWith("unix://") && (await ping(given.slice(7))))
    return { env: { DOCKER_HOST: given }, stop: async () => {}, started: false };
  if (!existsSync("/usr/sbin/dockerd") && !existsSync("/usr/bin/dockerd"))
    throw new Error("dockerd is not installed (Debian: apt-get install docker.io)");
  // A short path: a unix socket's path is limited to 107 bytes.
  const dir = mkdtempSync("/tmp/loclab-dockerd-");
  const socket = join(dir, "docker.sock");
  const pidFile = join(dir, "dockerd.pid");
  const logFile = join(dir, "dockerd.log");
  const out = openSync(logFile, "a");
  const child = spawn(
    "dockerd",
    [
      "--data-root",
      join(dir, "data"),
      "--exec-root",
      join(dir, "exec"),
      "--pidfile",
      pidFile,
      "-H",
      `unix://${socket}`,
      "--bridge=none",
      "--iptables=false",
      "--ip-forward=false",
    ],
    { stdio: ["ignore", out, out], detached: true },
  );
  child.unref();
  const deadline = Date.now() + 60_000;
  while (!(await ping(socket))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      const tail = readFileSync(logFile, "utf8").trim().split("\n").slice(-5).join("\n");
      throw new Error(`dockerd did not come up on ${socket}:\n${tail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log(`dockerd (pid ${child.pid}) on unix://${socket}`);
  const stop = async () => {
    const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : child.pid;
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      return;
    }
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      try {
        process.kill(pid, 0);
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
    // dockerd can leave mounts under its folders (exec/netns/default, overlay layers): unmount
    // them, deepest first, then remove the folder; a leftover is reported, never fatal.
    const mounts = readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .map((line) => line.split(" ")[1])
      .filter((point) => point && point.startsWith(`${dir}/`))
      .sort((a, b) => b.length - a.length);
    for (const point of mounts) spawnSync("umount", ["-l", point]);
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      log(`dockerd: could not remove ${dir}: ${error.message}`);
    }
  };
  return { env: { DOCKER_HOST: `unix://${socket}` }, stop, started: true };
}
