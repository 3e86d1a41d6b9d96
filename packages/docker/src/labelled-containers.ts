import type Docker from "dockerode";

/**
 * Force-removes every container, running or not, whose labels match `label` (`key` or
 * `key=value`, Docker's filter syntax), with its anonymous volumes: what a killed run left.
 * Returns how many there were; one already gone meanwhile is not an error.
 */
export async function removeLabelledContainers(docker: Docker, label: string): Promise<number> {
  const containers = await docker.listContainers({ all: true, filters: { label: [label] } });
  for (const info of containers)
    await docker
      .getContainer(info.Id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  return containers.length;
}
