import type Docker from "dockerode";

/**
 * The bytes a container has written on top of its image (its writable layer, the engine's
 * `SizeRw`), or undefined when the engine cannot say (the container is gone, a driver that does
 * not report it). Asked of the engine rather than read from its upper directory on the host: a
 * worker machine's runner may talk to a remote engine, and Docker's own `--storage-opt size`
 * needs xfs with project quotas, which an ext4 host has not.
 */
export async function writableLayerBytes(container: Docker.Container): Promise<number | undefined> {
  // `size` is the engine API's query parameter (GET /containers/{id}/json?size=true); dockerode
  // passes it on, its type does not list it.
  const inspect = container.inspect.bind(container) as (options: { size: boolean }) => Promise<unknown>;
  const info = await inspect({ size: true }).catch(() => undefined);
  const size = (info as { SizeRw?: unknown } | undefined)?.SizeRw;
  return typeof size === "number" && Number.isFinite(size) && size >= 0 ? size : undefined;
}

export interface LayerWatchOptions {
  /** The writable layer's limit in bytes. */
  limitBytes: number;
  /** How often the layer is measured while the watch runs (ms). */
  intervalMs: number;
  /** Called once, the first time a measurement passes the limit (to kill what is writing). */
  onOver: (bytes: number) => void;
}

export interface LayerWatch {
  /** Stops measuring, measures once more, and says the largest size seen and whether it passed the limit. */
  stop(): Promise<{ bytes: number | undefined; over: boolean }>;
}

/**
 * Measures a container's writable layer every `intervalMs` while a command runs, so that a disk
 * filler is stopped within about one interval's writing of the limit, not after it has filled
 * the host. One measurement at a time (a slow one delays the next instead of piling up).
 */
export function watchWritableLayer(container: Docker.Container, options: LayerWatchOptions): LayerWatch {
  let largest: number | undefined;
  let over = false;
  let stopped = false;
  let pending: Promise<void> = Promise.resolve();
  const measure = async () => {
    const bytes = await writableLayerBytes(container);
    if (bytes === undefined) return;
    largest = Math.max(largest ?? 0, bytes);
    if (bytes > options.limitBytes && !over) {
      over = true;
      options.onOver(bytes);
    }
  };
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    pending = measure().finally(() => {
      if (!stopped) timer = setTimeout(tick, options.intervalMs);
    });
  };
  timer = setTimeout(tick, options.intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pending;
      await measure();
      return { bytes: largest, over };
    },
  };
}
