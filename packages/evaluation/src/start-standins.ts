import { spawnSync } from "node:child_process";
import type Docker from "dockerode";
import { execInContainer } from "@loclab/docker";
import { InfraFailure } from "./infra-failure.js";
import { httpbinStartScript, type NetworkStandins } from "./network-standins.js";

/**
 * Starts an eval container's network stand-ins (see network-standins.ts) before its eval
 * script: the tarpit routes, added in the container's network namespace from the host (nsenter
 * into the container's process: the engine must run on this host, as root), then the httpbin
 * server. Returns what it did, for the run log, or throws an InfraFailure
 * (`network-standin-failed`): a run without them says nothing about the patch.
 */
export async function startStandins(container: Docker.Container, standins: NetworkStandins): Promise<string[]> {
  const done: string[] = [];
  if (standins.tarpits?.length) {
    const pid = (await container.inspect()).State.Pid;
    for (const prefix of standins.tarpits) {
      const route = spawnSync("nsenter", ["-t", String(pid), "-n", "ip", "route", "add", prefix, "dev", "lo"], {
        encoding: "utf8",
      });
      if (route.status !== 0)
        throw new InfraFailure(
          "network-standin-failed",
          `the tarpit route ${prefix} could not be added in the container's network namespace (nsenter -t ${pid} -n ip route add; the Docker engine must run on this host and loclab as root): ${(route.stderr || route.error?.message || "").trim()}`,
        );
      done.push(`tarpit ${prefix} routed to lo`);
    }
  }
  if (standins.httpbin) {
    const started = await execInContainer(container, ["/bin/sh", "-c", httpbinStartScript(standins.httpbin)], {
      timeoutMs: 120_000,
    });
    if (started.exitCode !== 0)
      throw new InfraFailure(
        "network-standin-failed",
        `the httpbin stand-in did not start${started.timedOut ? " (its start script ran over 120 s)" : ""}: ${started.output.trim().slice(-2000)}`,
      );
    const ports = [standins.httpbin.port, standins.httpbin.httpsPort].filter((port) => port !== undefined);
    done.push(`httpbin on 127.0.0.1:${ports.join(" and :")} for ${standins.httpbin.hosts.join(", ")}`);
  }
  return done;
}
