import { authHeaders, endpointRedactor, serverRoot, urlWithoutCredentials } from "@loclab/openai-http";
import { metricSum } from "./prometheus-text.js";
import type { EndpointSpec } from "./run-spec.js";

/** What one readiness/liveness check of a model server found. */
export interface EndpointProbe {
  /** Ready: `/v1/models` answered and lists the configured model (and `/health`, when the server has it, is 200). */
  ok: boolean;
  /** Why not, in one line (no secret in it). */
  problem?: string;
  /** The `/v1/models` answer as the server gave it (for the manifest). */
  models?: unknown;
  /** `/version` (vLLM) when offered. */
  version?: unknown;
  /** From `/metrics`, when the server exposes vLLM's gauges. */
  waiting?: number;
  running?: number;
}

/**
 * Checks one endpoint as vLLM exposes itself: `GET /health` (a 404 means the server has no
 * such route, which is fine; anything else but 200 is not ready), `GET /v1/models` (must list
 * `endpoint.model`), then, if offered, `GET /version` and `GET /metrics` (the waiting and
 * running request gauges the scheduler reads). Never throws; the API key goes only into the
 * request header and is scrubbed from any problem text.
 */
export async function probeEndpoint(
  endpoint: Pick<EndpointSpec, "baseURL" | "model" | "apiKeyEnv">,
  options: { timeoutMs?: number } = {},
): Promise<EndpointProbe> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const redact = endpointRedactor(endpoint);
  const root = serverRoot(endpoint.baseURL);
  const base = urlWithoutCredentials(endpoint.baseURL).replace(/\/+$/, "");
  const get = async (url: string) =>
    fetch(url, { headers: authHeaders(endpoint), signal: AbortSignal.timeout(timeoutMs) });
  try {
    const health = await get(`${root}/health`);
    await health.arrayBuffer();
    if (health.status !== 200 && health.status !== 404)
      return { ok: false, problem: `${root}/health answered HTTP ${health.status}` };
    const modelsResponse = await get(`${base}/models`);
    if (modelsResponse.status !== 200) {
      await modelsResponse.arrayBuffer();
      return { ok: false, problem: `${base}/models answered HTTP ${modelsResponse.status}` };
    }
    const models: unknown = await modelsResponse.json().catch(() => undefined);
    const ids = Array.isArray((models as { data?: unknown })?.data)
      ? ((models as { data: { id?: unknown }[] }).data
          .map((entry) => entry?.id)
          .filter((id) => typeof id === "string") as string[])
      : undefined;
    if (!ids) return { ok: false, problem: `${base}/models did not answer a model list`, models };
    if (!ids.includes(endpoint.model))
      return {
        ok: false,
        problem: `${base}/models does not list ${JSON.stringify(endpoint.model)} (it serves ${ids.map((id) => JSON.stringify(id)).join(", ") || "nothing"})`,
        models,
      };
    const probe: EndpointProbe = { ok: true, models };
    const version = await get(`${root}/version`).catch(() => undefined);
    if (version?.status === 200) probe.version = await version.json().catch(() => undefined);
    else await version?.arrayBuffer().catch(() => undefined);
    const metrics = await get(`${root}/metrics`).catch(() => undefined);
    if (metrics?.status === 200) {
      const text = await metrics.text();
      const waiting = metricSum(text, "vllm:num_requests_waiting");
      const running = metricSum(text, "vllm:num_requests_running");
      if (waiting !== undefined) probe.waiting = waiting;
      if (running !== undefined) probe.running = running;
    } else await metrics?.arrayBuffer().catch(() => undefined);
    return probe;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === "TimeoutError"
        ? `no answer within ${timeoutMs / 1000} s`
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    return { ok: false, problem: redact(`${root} unreachable: ${reason}`) };
  }
}
