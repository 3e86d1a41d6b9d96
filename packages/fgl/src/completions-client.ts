import {
  createOpenAIHttpClient,
  type EndpointTarget,
  type HttpProgress,
  ModelAnswerError,
  type OpenAIHttpClient,
  type RetryPolicy,
} from "@loclab/openai-http";
import { z } from "zod";

export interface ScoringEndpoint extends EndpointTarget {
  model: string;
  /** Requests in flight at once on this endpoint; default 1. */
  maxConcurrency?: number;
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

/** Scoring's retry defaults: the one policy, with 0.5 s first waits and no deadline on a whole call (a long echo is expected). */
const SCORING_RETRY: Partial<RetryPolicy> = { backoffMs: 500, callDeadlineMs: Number.POSITIVE_INFINITY };

/** Options of one scoring call: its timeout per attempt, the retry policy's other parts, a cancel signal. */
export interface ScoringCallOptions {
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  /** Told before each retry (a pool's breaker counts them as faults of the endpoint). */
  onProgress?: (event: HttpProgress) => void;
}

const clients = new Map<string, OpenAIHttpClient>();

/** One client per endpoint (one `openai` instance each), kept for the process's life. */
function clientOf(endpoint: ScoringEndpoint): OpenAIHttpClient {
  const key = JSON.stringify([endpoint.baseURL, endpoint.apiKeyEnv ?? null]);
  let client = clients.get(key);
  if (!client) {
    client = createOpenAIHttpClient({
      baseURL: endpoint.baseURL,
      ...(endpoint.apiKeyEnv ? { apiKeyEnv: endpoint.apiKeyEnv } : {}),
      retry: SCORING_RETRY,
    });
    clients.set(key, client);
  }
  return client;
}

function callOptions(options: ScoringCallOptions, defaultTimeoutMs: number) {
  return {
    retry: { requestTimeoutMs: options.timeoutMs ?? defaultTimeoutMs, ...options.retry },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}

/**
 * One forward pass over `prompt` (docs/definitions.md §5): a completions request with
 * `echo: true`, `logprobs: 0`, `max_tokens` 1 (vLLM before 0.6 refuses 0) at temperature 0; the
 * answer's `text_offset` and `token_logprobs` cover the prompt's tokens and then the one
 * generated. Transport faults and unparsable answers are retried by the one client's policy
 * (4 tries, 0.5 s doubling); an answer without offsets or log-probabilities (a server that
 * ignores `echo` or `logprobs`) is a `ModelAnswerError` naming what is missing, not retried.
 */
export async function echoPrompt(
  endpoint: ScoringEndpoint,
  prompt: string,
  options: ScoringCallOptions & { maxTokens?: number } = {},
): Promise<EchoedPrompt> {
  const client = clientOf(endpoint);
  const body = {
    model: endpoint.model,
    prompt,
    echo: true,
    logprobs: 0,
    max_tokens: options.maxTokens ?? 1,
    temperature: 0,
  };
  const { value } = await client.completions(
    body,
    (raw) => echoedOf(EchoResponseSchema.parse(raw), prompt, client.baseURL),
    callOptions(options, 600_000),
  );
  return value;
}

function echoedOf(answer: z.infer<typeof EchoResponseSchema>, prompt: string, baseURL: string): EchoedPrompt {
  const unusable = (message: string) => new ModelAnswerError({ message: `${baseURL}: ${message}`, retryable: false });
  const choice = answer.choices[0]!;
  if (!choice.logprobs)
    throw unusable("the completions answer has no logprobs (the server does not support echo + logprobs)");
  if (!choice.text.includes(prompt.slice(0, 64)))
    throw unusable("the answer does not echo the prompt (the server ignores echo)");
  const { text_offset: offsets, token_logprobs: logprobs } = choice.logprobs;
  if (offsets.length !== logprobs.length || offsets.length === 0)
    throw unusable(`text_offset (${offsets.length}) and token_logprobs (${logprobs.length}) do not line up`);
  return {
    text: choice.text,
    offsets,
    logprobs,
    ...(answer.usage ? { promptTokens: answer.usage.prompt_tokens } : {}),
  };
}

/**
 * Tokens of `text` by the server's own tokenizer: vLLM's `/tokenize` (at the server root, not
 * under `/v1`), without special tokens, so that counts add up as text does.
 */
export async function countTokens(
  endpoint: ScoringEndpoint,
  text: string,
  options: ScoringCallOptions = {},
): Promise<number> {
  if (text === "") return 0;
  const client = clientOf(endpoint);
  const { value } = await client.tokenize(
    { model: endpoint.model, prompt: text, add_special_tokens: false },
    (raw) => {
      const count = z.looseObject({}).parse(raw).count;
      // A JSON object without a count is another server's /tokenize: asking again cannot help.
      if (typeof count !== "number")
        throw new ModelAnswerError({
          message: `${client.baseURL}: /tokenize: no count in the answer`,
          retryable: false,
        });
      return count;
    },
    callOptions(options, 60_000),
  );
  return value;
}
