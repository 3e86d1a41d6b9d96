import { statfs } from "node:fs/promises";
import type Docker from "dockerode";

export class DiskSpaceError extends Error {
  constructor(path: string, free: number, needed: number) {
    super(
      `only ${(free / 2 ** 30).toFixed(1)} GiB free at ${path}, the evaluation asks for ${(needed / 2 ** 30).toFixed(1)} GiB (free some, or lower the minimum)`,
    );
    this.name = "DiskSpaceError";
  }
}

/**
 * Free space where the engine keeps images and containers (`DockerRootDir`), checked before any
 * work: an env build that runs out of space mid-way ("no space left on device") loses the
 * build. A root the host cannot see (a remote engine) is not checked; the result says so.
 */
export async function checkDiskSpace(
  docker: Docker,
  minFreeBytes: number,
): Promise<{ path: string; freeBytes: number } | { path: string; unchecked: string }> {
  const info = (await docker.info()) as { DockerRootDir?: string };
  const path = info.DockerRootDir ?? "/var/lib/docker";
  let stats;
  try {
    stats = await statfs(path);
  } catch (error) {
    return { path, unchecked: (error as Error).message };
  }
  const freeBytes = Number(stats.bavail) * Number(stats.bsize);
  if (freeBytes < minFreeBytes) throw new DiskSpaceError(path, freeBytes, minFreeBytes);
  return { path, freeBytes };
}
