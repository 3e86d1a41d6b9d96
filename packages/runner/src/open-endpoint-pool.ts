import { urlWithoutCredentials } from "@loclab/openai-http";
import { serverWindow } from "./context-window.js";
import { EndpointPool, type EndpointPoolOptions } from "./endpoint-pool.js";
import type { EndpointProbe } from "./endpoint-probe.js";
import type { EndpointSpec } from "./run-spec.js";

/** Every endpoint failed its readiness check: nothing was started. */
export class EndpointsNotReadyError extends Error {
  override readonly name = "EndpointsNotReadyError";
}

export interface OpenedPool {
  pool: EndpointPool;
  /** Each endpoint's readiness check, in the endpoints' order (for the manifest). */
  probes: EndpointProbe[];
  /** Each endpoint's window (`max_model_len` of `/v1/models`), when it says. */
  windows: (number | undefined)[];
}

/**
 * The endpoints as a started pool, checked before any work (a run's and FGL scoring's): every
 * endpoint's readiness is probed; with none ready the pool is stopped and
 * `EndpointsNotReadyError` names each endpoint and its problem; otherwise the liveness checks
 * start (those not ready are probed back in) and each endpoint's window is read from its answer.
 */
export async function openEndpointPool(
  endpoints: readonly EndpointSpec[],
  options: EndpointPoolOptions & {
    /** Start even with no endpoint ready (more are to join: `EndpointPool.add`); the pool waits, paused. */
    allowNoneReady?: boolean;
  },
): Promise<OpenedPool> {
  const pool = new EndpointPool(endpoints, options);
  const probes = await pool.checkAll();
  if (!pool.anyUp && !options.allowNoneReady) {
    pool.stop();
    const problems = probes
      .map((probe, i) => `endpoints[${i}] ${urlWithoutCredentials(endpoints[i]?.baseURL ?? "")}: ${probe.problem}`)
      .join("; ");
    throw new EndpointsNotReadyError(`no endpoint is ready, nothing was started: ${problems} (is the server up?)`);
  }
  pool.start();
  const windows = probes.map((probe, i) => serverWindow(probe.models, endpoints[i]?.model ?? ""));
  return { pool, probes, windows };
}
