import { makeRedactor, urlCredentials, urlSecrets, urlWithoutCredentials } from "@loclab/agent";
import { serverRoot } from "@loclab/runner";
import { z } from "zod";

/** A failure of the server or the network, worth retrying (connection refused, 5xx, 429, a timeout). */
export class InfrastructureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InfrastructureError";
  }
}

/** The server answered, but not with what scoring needs (400, no echo, no logprobs, no offsets): not retried. */
export class ScoringRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ScoringRequestError";
  }
}

export interface ScoringEndpoint {
  /** `http://host:port/v1`. */
  baseURL: string;
  model: string;
  /** Requests in flight at once on this endpoint; default 1. */
  maxConcurrency?: number;
  /** The environment variable holding the API key (the key itself is never held, logged or written). */
  apiKeyEnv?: string;
}

const EchoResponseSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        text: z.string(),
        logprobs: z
          .looseObject({ text_offset: z.array(z.number().int()), token_logprobs: z.array(z.number().nullable()) })
          .nullable()
          .optional(),
      }),
    )
    .min(1),
  usage: z.looseObject({ prompt_tokens: z.number().int() }).optional(),
});

/** The echoed prompt with per-token offsets and log-probabilities. */
export interface EchoedPrompt {
  text: string;
  offsets: number[];
  logprobs: Array<number | null>;
  promptTokens?: number;
}

async function post(
  endpoint: ScoringEndpoint,
  base: string,
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<unknown> {
  // fetch refuses a URL with credentials: they go as HTTP Basic auth (unless a key is set), as
  // the agent's client sends them, and neither they nor the key reach a message, so never a
  // scores file.
  const url = `${urlWithoutCredentials(base).replace(/\/+$/, "")}${path}`;
  const key = endpoint.apiKeyEnv ? process.env[endpoint.apiKeyEnv] : undefined;
  const credentials = urlCredentials(endpoint.baseURL);
  const redact = makeRedactor([key, ...urlSecrets(endpoint.baseURL)]);
  const authorization = key
    ? `Bearer ${key}`
    : credentials
      ? `Basic ${Buffer.from(credentials).toString("base64")}`
      : undefined;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Inside the try: a body cut or timed out after the headers is the network's failure too.
    text = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    throw new InfrastructureError(redact(`${url}: ${cause ?? (error as Error).name}: ${(error as Error).message}`));
  }
  if (response.status >= 500 || response.status === 429 || response.status === 408)
    throw new InfrastructureError(redact(`${url}: HTTP ${response.status}: ${text.slice(0, 300)}`));
  if (!response.ok) throw new ScoringRequestError(redact(`${url}: HTTP ${response.status}: ${text.slice(0, 300)}`));
  try {
    return JSON.parse(text);
  } catch {
    throw new ScoringRequestError(redact(`${url}: the answer is not JSON: ${text.slice(0, 200)}`));
  }
}

/**
 * One forward pass over `prompt` (docs/definitions.md §5): a completions request with
 * `echo: true`, `logprobs: 0`, `max_tokens` 1 (vLLM before 0.6 refuses 0) at temperature 0; the
 * answer's `text_offset` and `token_logprobs` cover the prompt's tokens and then the one
 * generated. An answer without them (a server that ignores `echo` or `logprobs`) is a
 * `ScoringRequestError` naming what is missing.
 */
export async function echoPrompt(
  endpoint: ScoringEndpoint,
  prompt: string,
  options: { timeoutMs?: number; maxTokens?: number } = {},
): Promise<EchoedPrompt> {
  const body = {
    model: endpoint.model,
    prompt,
    echo: true,
    logprobs: 0,
    max_tokens: options.maxTokens ?? 1,
    temperature: 0,
  };
  const json = await post(endpoint, endpoint.baseURL, "/completions", body, options.timeoutMs ?? 600_000);
  const parsed = EchoResponseSchema.safeParse(json);
  if (!parsed.success)
    throw new ScoringRequestError(
      `${urlWithoutCredentials(endpoint.baseURL)}/completions: not a completions answer: ${parsed.error.issues[0]?.message ?? "bad shape"}`,
    );
  const choice = parsed.data.choices[0]!;
  if (!choice.logprobs)
    throw new ScoringRequestError(
      `${urlWithoutCredentials(endpoint.baseURL)}: the completions answer has no logprobs (the server does not support echo + logprobs)`,
    );
  if (!choice.text.includes(prompt.slice(0, 64)))
    throw new ScoringRequestError(
      `${urlWithoutCredentials(endpoint.baseURL)}: the answer does not echo the prompt (the server ignores echo)`,
    );
  const { text_offset: offsets, token_logprobs: logprobs } = choice.logprobs;
  if (offsets.length !== logprobs.length || offsets.length === 0)
    throw new ScoringRequestError(
      `${urlWithoutCredentials(endpoint.baseURL)}: text_offset (${offsets.length}) and token_logprobs (${logprobs.length}) do not line up`,
    );
  return {
    text: choice.text,
    offsets,
    logprobs,
    ...(parsed.data.usage ? { promptTokens: parsed.data.usage.prompt_tokens } : {}),
  };
}

/**
 * Tokens of `text` by the server's own tokenizer: vLLM's `/tokenize` (at the server root, not
 * under `/v1`), without special tokens, so that counts add up as text does.
 */
export async function countTokens(
  endpoint: ScoringEndpoint,
  text: string,
  options: { timeoutMs?: number } = {},
): Promise<number> {
  if (text === "") return 0;
  const root = serverRoot(endpoint.baseURL);
  const json = await post(
    endpoint,
    root,
    "/tokenize",
    { model: endpoint.model, prompt: text, add_special_tokens: false },
    options.timeoutMs ?? 60_000,
  );
  const count = (json as { count?: unknown }).count;
  if (typeof count !== "number")
    throw new ScoringRequestError(`${urlWithoutCredentials(root)}/tokenize: no count in the answer`);
  return count;
}

/** Retries `work` on infrastructure errors: `attempts` tries, waiting 0.5 s, 1 s, 2 s, … between them. */
export async function withRetries<T>(
  work: () => Promise<T>,
  options: { attempts?: number; baseDelayMs?: number; onRetry?: (error: Error, attempt: number) => void } = {},
): Promise<T> {
  const attempts = options.attempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof InfrastructureError) || attempt >= attempts) throw error;
      options.onRetry?.(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, (options.baseDelayMs ?? 500) * 2 ** (attempt - 1)));
    }
  }
}
