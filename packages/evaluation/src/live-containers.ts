import type Docker from "dockerode";

// Every container an evaluation has started and not yet removed, so that an interrupted run
// (Ctrl-C, SIGTERM, a crash in the caller) removes them too: the harness leaves its
// containers behind when killed.
const live = new Map<string, Docker.Container>();

export function trackContainer(container: Docker.Container): void {
  live.set(container.id, container);
}

export function untrackContainer(container: Docker.Container): void {
  live.delete(container.id);
}

/** Force-removes every tracked container and its anonymous volumes. */
export async function removeLiveContainers(): Promise<number> {
  const containers = [...live.values()];
  live.clear();
  await Promise.all(containers.map((container) => container.remove({ force: true, v: true }).catch(() => undefined)));
  return containers.length;
}

let installed = false;

/**
 * On SIGINT / SIGTERM: remove the live containers, then exit with the signal's code (130 /
 * 143). Installed once per process, by the first evaluation.
 */
export function removeContainersOnSignal(): void {
  if (installed) return;
  installed = true;
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      void removeLiveContainers().finally(() => process.exit(code));
    });
  }
}
