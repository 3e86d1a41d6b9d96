import { createWriteStream } from "node:fs";
import Docker from "dockerode";
import {
  connectDocker,
  demultiplex as demultiplexOutput,
  DockerUnavailableError,
  dockerSocketPath,
} from "@loclab/docker";
import type { Launcher } from "./fleet-lifecycle.js";
import type { LaunchedServer } from "./launched-server.js";
import { vllmServeArgs, vllmServeEnv } from "./serve-args.js";
import type { VllmServerSpec } from "./server-spec.js";

export { DockerUnavailableError, dockerSocketPath };

export interface DockerLauncherOptions {
  /** The engine's socket; default from `DOCKER_HOST` (`unix://…`), else /var/run/docker.sock. */
  socketPath?: string;
  /** Pull the image when it is not present locally; default true. */
  pull?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * The container's create options for a spec (pure, so the test can compare them with what the
 * engine records): the GPUs as a device request (`--gpus device=…`; inside the container they
 * are numbered from 0, so CUDA_VISIBLE_DEVICES is not set), `--ipc=host` (vLLM's shared memory
 * for tensor parallelism), the Hugging Face cache as a volume, and either the port published
 * on 127.0.0.1 only (bridge) or the host's network with the server listening on `spec.host`.
 */
export function containerOptions(
  spec: VllmServerSpec,
  env: NodeJS.ProcessEnv = process.env,
): Docker.ContainerCreateOptions {
  if (spec.launcher.kind !== "docker") throw new Error('containerOptions needs a spec with launcher.kind "docker"');
  const launcher = spec.launcher;
  const bridge = launcher.network === "bridge";
  const args = vllmServeArgs({ ...spec, host: bridge ? "0.0.0.0" : spec.host });
  const { CUDA_VISIBLE_DEVICES: _hostIndices, ...serverEnv } = vllmServeEnv(spec);
  void _hostIndices;
  const passed = spec.secretEnv.filter((name) => env[name] !== undefined).map((name) => `${name}=${env[name]}`);
  const port = `${spec.port}/tcp`;
  return {
    name: `loclab-vllm-${spec.port}-${Date.now().toString(36)}`,
    Image: launcher.image,
    ...(launcher.entrypoint ? { Entrypoint: launcher.entrypoint, Cmd: args } : { Cmd: args.slice(1) }),
    Env: [...Object.entries(serverEnv).map(([key, value]) => `${key}=${value}`), ...passed],
    Labels: {
      "loclab.vllm.model": spec.model,
      "loclab.vllm.port": String(spec.port),
      "loclab.vllm.gpus": spec.gpus.join(","),
    },
    ...(bridge ? { ExposedPorts: { [port]: {} } } : {}),
    HostConfig: {
      IpcMode: "host",
      NetworkMode: bridge ? "bridge" : "host",
      ...(bridge ? { PortBindings: { [port]: [{ HostIp: "127.0.0.1", HostPort: String(spec.port) }] } } : {}),
      Binds: [...(launcher.hfCache ? [`${launcher.hfCache}:/root/.cache/huggingface`] : []), ...launcher.binds],
      DeviceRequests:
        spec.gpus.length > 0 ? [{ Driver: "nvidia", DeviceIDs: spec.gpus.map(String), Capabilities: [["gpu"]] }] : [],
    },
  };
}

/**
 * The Docker launcher (dockerode): checks the engine first, uses the image when present (pulls
 * it otherwise, if allowed), starts one container per server, copies its log to the fleet's
 * log file, and stops it with a grace period and removes it (volumes too).
 */
export async function dockerLauncher(
  options: DockerLauncherOptions = {},
): Promise<Launcher & { docker: Docker; socketPath: string }> {
  const { docker, socketPath } = await connectDocker({
    ...(options.socketPath ? { socketPath: options.socketPath } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  const attach = (
    spec: VllmServerSpec,
    handle: { kind: string; containerId?: string },
    logFile?: string,
  ): LaunchedServer => {
    if (handle.kind !== "docker" || !handle.containerId)
      throw new Error("the Docker launcher attaches to containers only");
    return containerServer(docker, spec, handle.containerId, socketPath, logFile);
  };
  return {
    docker,
    socketPath,
    attach,
    async launch(spec, { logFile }) {
      if (spec.launcher.kind !== "docker") throw new Error('the Docker launcher needs launcher.kind "docker"');
      const image = spec.launcher.image;
      const present = await docker
        .getImage(image)
        .inspect()
        .then(
          () => true,
          () => false,
        );
      if (!present) {
        if (options.pull === false) throw new Error(`image ${image} is not present locally (pulling is off)`);
        await new Promise<void>((resolve, reject) =>
          docker.pull(image, (error: Error | null, stream: NodeJS.ReadableStream) => {
            if (error) return reject(new Error(`image ${image} is not present and cannot be pulled: ${error.message}`));
            docker.modem.followProgress(stream, (done: Error | null) =>
              done ? reject(new Error(`pulling ${image}: ${done.message}`)) : resolve(),
            );
          }),
        );
      }
      const container = await docker.createContainer(containerOptions(spec, options.env));
      await container.start();
      const out = createWriteStream(logFile, { flags: "a" });
      const stream = (await container.logs({ follow: true, stdout: true, stderr: true })) as NodeJS.ReadableStream;
      docker.modem.demuxStream(stream, out, out);
      stream.on("end", () => out.end());
      return containerServer(docker, spec, container.id, socketPath, logFile);
    },
  };
}

function containerServer(
  docker: Docker,
  spec: VllmServerSpec,
  containerId: string,
  socketPath: string,
  logFile?: string,
): LaunchedServer {
  const container = docker.getContainer(containerId);
  const alive = async () =>
    container.inspect().then(
      (info) => info.State.Running === true,
      () => false,
    );
  return {
    spec,
    handle: { kind: "docker", containerId, socketPath },
    ...(logFile ? { logFile } : {}),
    alive,
    async logTail(lines = 20) {
      const buffer = (await container
        .logs({ stdout: true, stderr: true, tail: lines })
        .catch(() => Buffer.alloc(0))) as unknown as Buffer;
      return demultiplexOutput(buffer).toString("utf8").trimEnd();
    },
    async stop({ graceMs = 30_000 } = {}) {
      // `docker stop -t`: SIGTERM, SIGKILL after the grace; then the container and its anonymous volumes go.
      await container.stop({ t: Math.ceil(graceMs / 1000) }).catch((error: { statusCode?: number }) => {
        if (error.statusCode !== 304 && error.statusCode !== 404) throw error;
      });
      await container.remove({ force: true, v: true }).catch((error: { statusCode?: number }) => {
        if (error.statusCode !== 404 && error.statusCode !== 409) throw error;
      });
    },
  };
}
