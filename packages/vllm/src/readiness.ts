import { baseURLOf, servedName, type VllmServerSpec } from "./server-spec.js";

export type ReadinessCheck = "alive" | "health" | "models" | "completion" | "promptLogprobs";

export interface Readiness {
  ready: boolean;
  /** The first check that failed, and why; absent when ready. */
  failed?: { check: ReadinessCheck; problem: string };
  /** What `/v1/models` listed (the base model and its adapters). */
  models?: string[];
  /** `/version`'s `version`, when offered. */
  version?: string;
}

export interface ProbeOptions {
  /** Is the process or container still there? */
  alive: () => Promise<boolean>;
  /** Per HTTP request; default 30 s (a first completion can be slow). */
  requestTimeoutMs?: number;
}

/**
 * Whether a vLLM server is ready to serve a run, in the order a failure is cheapest to find:
 * the process or container alive; `GET /health` 200; `GET /v1/models` lists the served name
 * and every adapter; a 1-token completion answers; a `prompt_logprobs` probe returns finite
 * log-probabilities (what FGL scoring needs). vLLM's `/health` stays 200 in some dead states
 * (an engine that died under the API server), so readiness is never `/health` alone, and a
 * running server is re-probed the same way (`loclab vllm status`).
 */
export async function probeReadiness(spec: VllmServerSpec, options: ProbeOptions): Promise<Readiness> {
  const base = baseURLOf(spec);
  const root = base.replace(/\/v1$/, "");
  const timeout = options.requestTimeoutMs ?? 30_000;
  const fail = (check: ReadinessCheck, problem: string, extra: Partial<Readiness> = {}): Readiness => ({
    ready: false,
    failed: { check, problem },
    ...extra,
  });
  if (!(await options.alive())) return fail("alive", "the server process or container is not running");
  const request = async (path: string, body?: unknown) => {
    const response = await fetch(`${root}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? undefined : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeout),
    });
    const text = await response.text();
    return { status: response.status, text };
  };
  try {
    const health = await request("/health");
    if (health.status !== 200) return fail("health", `/health answered HTTP ${health.status}`);
    const listed = await request("/v1/models");
    if (listed.status !== 200) return fail("models", `/v1/models answered HTTP ${listed.status}`);
    const models = ((JSON.parse(listed.text) as { data?: Array<{ id: string }> }).data ?? []).map((model) => model.id);
    const wanted = [servedName(spec), ...(spec.lora?.adapters ?? []).map((adapter) => adapter.name)];
    const missing = wanted.filter((name) => !models.includes(name));
    if (missing.length > 0)
      return fail(
        "models",
        `/v1/models does not list ${missing.join(", ")} (it lists ${models.join(", ") || "nothing"})`,
        { models },
      );
    const version = await request("/version")
      .then((answer) =>
        answer.status === 200 ? ((JSON.parse(answer.text) as { version?: string }).version ?? undefined) : undefined,
      )
      .catch(() => undefined);
    const completion = await request("/v1/completions", {
      model: servedName(spec),
      prompt: "Hello",
      max_tokens: 1,
      temperature: 0,
    });
    if (completion.status !== 200)
      return fail(
        "completion",
        `a 1-token completion answered HTTP ${completion.status}: ${completion.text.slice(0, 200)}`,
        { models },
      );
    const choice = (JSON.parse(completion.text) as { choices?: Array<{ text?: string }> }).choices?.[0];
    if (typeof choice?.text !== "string")
      return fail("completion", "a 1-token completion came back without choices[0].text", { models });
    const logprobs = await request("/v1/completions", {
      model: servedName(spec),
      prompt: "Hello world",
      max_tokens: 1,
      temperature: 0,
      prompt_logprobs: 0,
    });
    if (logprobs.status !== 200)
      return fail(
        "promptLogprobs",
        `a prompt_logprobs probe answered HTTP ${logprobs.status}: ${logprobs.text.slice(0, 200)}`,
        { models },
      );
    const positions = (
      JSON.parse(logprobs.text) as {
        choices?: Array<{ prompt_logprobs?: Array<Record<string, { logprob: number }> | null> }>;
      }
    ).choices?.[0]?.prompt_logprobs;
    const values = (positions ?? [])
      .slice(1)
      .flatMap((entry) => Object.values(entry ?? {}).map((value) => value.logprob));
    if (
      !positions ||
      positions[0] !== null ||
      values.length === 0 ||
      !values.every((value) => Number.isFinite(value) && value <= 0)
    ) {
      return fail(
        "promptLogprobs",
        "the prompt_logprobs probe did not return finite log-probabilities after a null first position",
        { models },
      );
    }
    return { ready: true, models, ...(version ? { version } : {}) };
  } catch (error) {
    const message =
      (error as Error).name === "TimeoutError"
        ? `no answer within ${timeout} ms`
        : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
    return fail("health", `${root}: ${message}`);
  }
}
