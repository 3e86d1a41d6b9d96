import { mkdir } from "node:fs/promises";
import type { FleetPlan } from "./fleet.js";
import { fleetFiles, readFleetState, writeFleetState, type FleetState } from "./fleet-state.js";
import { serverFingerprint } from "./fingerprint.js";
import type { LaunchedServer } from "./launched-server.js";
import { launchProcess, processServer } from "./process-launcher.js";
import { probeReadiness, type Readiness } from "./readiness.js";
import type { VllmServerSpec } from "./server-spec.js";
import { ARTIFACT_KINDS } from "@loclab/schemas";

/** How a server of a fleet is started and found again; the Docker launcher plugs in here. */
export interface Launcher {
  launch(spec: VllmServerSpec, options: { logFile: string }): Promise<LaunchedServer>;
  attach(spec: VllmServerSpec, handle: FleetState["servers"][number]["handle"], logFile?: string): LaunchedServer;
}

export const processLauncher: Launcher = {
  launch: (spec, options) => launchProcess(spec, options),
  attach: (spec, handle, logFile) => {
    if (handle.kind !== "process") throw new Error("the process launcher cannot attach to a container");
    return processServer(spec, handle.pid, logFile);
  },
};

export interface UpOptions {
  stateDir: string;
  /** Per server; vLLM loading a 30B model takes minutes. Default 15 minutes. */
  readyTimeoutMs?: number;
  pollMs?: number;
  /** By launcher kind; default the process launcher (and Docker when given). */
  launchers?: Partial<Record<VllmServerSpec["launcher"]["kind"], Launcher>>;
  onProgress?: (line: string) => void;
}

/**
 * Starts every server of a plan and waits until each is ready (see probeReadiness); writes the
 * fleet's state (PIDs or container ids, logs, fingerprints) and the runner's endpoints into
 * `stateDir`. If one server dies or times out, all are stopped and the error names that server
 * with the end of its log.
 */
export async function upFleet(plan: FleetPlan, options: UpOptions): Promise<FleetState> {
  const progress = options.onProgress ?? (() => {});
  await mkdir(options.stateDir, { recursive: true });
  const launched: LaunchedServer[] = [];
  try {
    for (const [index, spec] of plan.servers.entries()) {
      const launcher = launcherFor(spec, options.launchers);
      const server = await launcher.launch(spec, { logFile: fleetFiles.log(options.stateDir, index) });
      launched.push(server);
      progress(
        `server ${index}: started (${server.handle.kind === "process" ? `pid ${server.handle.pid}` : `container ${server.handle.containerId.slice(0, 12)}`}), GPUs ${spec.gpus.join(",") || "none"}, port ${spec.port}`,
      );
    }
    const readiness = await Promise.all(launched.map((server, index) => waitReady(server, index, options)));
    const state: FleetState = {
      kind: ARTIFACT_KINDS.vllmFleet,
      schemaVersion: 1,
      startedAt: new Date().toISOString(),
      servers: await Promise.all(
        launched.map(async (server, index) => ({
          spec: server.spec,
          handle: server.handle,
          ...(server.logFile ? { logFile: server.logFile } : {}),
          fingerprint: await serverFingerprint(server.spec, readiness[index]!.version ?? null),
        })),
      ),
      endpoints: plan.endpoints,
    };
    await writeFleetState(options.stateDir, state);
    return state;
  } catch (error) {
    await Promise.all(launched.map((server) => server.stop({ graceMs: 10_000 }).catch(() => {})));
    throw error;
  }
}

async function waitReady(server: LaunchedServer, index: number, options: UpOptions): Promise<Readiness> {
  const deadline = Date.now() + (options.readyTimeoutMs ?? 15 * 60_000);
  let last: Readiness | undefined;
  for (;;) {
    last = await probeReadiness(server.spec, { alive: () => server.alive(), requestTimeoutMs: 30_000 });
    if (last.ready) {
      options.onProgress?.(
        `server ${index}: ready on port ${server.spec.port}${last.version ? ` (vLLM ${last.version})` : ""}`,
      );
      return last;
    }
    if (last.failed?.check === "alive") {
      throw new Error(
        `server ${index} (port ${server.spec.port}) exited before it was ready; the end of its log:\n${await server.logTail()}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `server ${index} (port ${server.spec.port}) not ready after ${Math.round((options.readyTimeoutMs ?? 900_000) / 1000)} s: ${last.failed?.check}: ${last.failed?.problem}; the end of its log:\n${await server.logTail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 1000));
  }
}

export interface ServerStatus {
  index: number;
  port: number;
  handle: FleetState["servers"][number]["handle"];
  readiness: Readiness;
}

/** Re-probes every server of a running fleet the way readiness was established. */
export async function fleetStatus(
  stateDir: string,
  options: { launchers?: UpOptions["launchers"] } = {},
): Promise<ServerStatus[]> {
  const state = await readFleetState(stateDir);
  return Promise.all(
    state.servers.map(async (entry, index) => {
      const server = launcherFor(entry.spec, options.launchers).attach(entry.spec, entry.handle, entry.logFile);
      return {
        index,
        port: entry.spec.port,
        handle: entry.handle,
        readiness: await probeReadiness(entry.spec, { alive: () => server.alive(), requestTimeoutMs: 30_000 }),
      };
    }),
  );
}

/** Stops every server of a fleet (SIGTERM, SIGKILL after the grace period); returns how many it stopped. */
export async function downFleet(
  stateDir: string,
  options: { graceMs?: number; launchers?: UpOptions["launchers"] } = {},
): Promise<number> {
  const state = await readFleetState(stateDir);
  await Promise.all(
    state.servers.map((entry) =>
      launcherFor(entry.spec, options.launchers)
        .attach(entry.spec, entry.handle, entry.logFile)
        .stop({ graceMs: options.graceMs ?? 30_000 }),
    ),
  );
  return state.servers.length;
}

function launcherFor(spec: VllmServerSpec, launchers: UpOptions["launchers"]): Launcher {
  const launcher = launchers?.[spec.launcher.kind] ?? (spec.launcher.kind === "process" ? processLauncher : undefined);
  if (!launcher)
    throw new Error(
      `no launcher for kind ${spec.launcher.kind}: pass the Docker launcher (dockerLauncher()) in launchers`,
    );
  return launcher;
}
