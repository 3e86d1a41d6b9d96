import Docker from "dockerode";

export interface DockerEngineOptions {
  /** The engine's socket; default from `DOCKER_HOST` (`unix://…`), else /var/run/docker.sock. */
  socketPath?: string;
  env?: NodeJS.ProcessEnv;
}

/** A missing or dead Docker engine: one message, before any work starts. */
export class DockerUnavailableError extends Error {
  constructor(socketPath: string, reason: string) {
    super(`no Docker engine answers at unix://${socketPath}: ${reason} (start dockerd, or set DOCKER_HOST)`);
    this.name = "DockerUnavailableError";
  }
}

export function dockerSocketPath(env: NodeJS.ProcessEnv = process.env): string {
  const host = env.DOCKER_HOST;
  if (host?.startsWith("unix://")) return host.slice("unix://".length);
  if (host && host !== "") throw new Error(`DOCKER_HOST=${host}: only unix:// sockets are supported`);
  return "/var/run/docker.sock";
}

export interface DockerEngine {
  docker: Docker;
  socketPath: string;
}

/** Connects and pings: a dead or missing daemon is a `DockerUnavailableError` here, not mid-run. */
export async function connectDocker(options: DockerEngineOptions = {}): Promise<DockerEngine> {
  const socketPath = options.socketPath ?? dockerSocketPath(options.env);
  const docker = new Docker({ socketPath });
  try {
    await docker.ping();
  } catch (error) {
    throw new DockerUnavailableError(socketPath, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  return { docker, socketPath };
}
