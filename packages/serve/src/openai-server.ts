import { createHash, randomBytes, randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { ApiError, maxTokensTooLarge, promptTooLong } from "./api-errors.js";
import {
  chatCompletionRequestSchema,
  completionRequestSchema,
  describeIssues,
  detokenizeRequestSchema,
  tokenizeRequestSchema,
  type ChatCompletionRequest,
  type CompletionRequest,
} from "./api-schemas.js";
import { renderChatPrompt } from "./chat-prompt.js";
import {
  LlamaEngine,
  type EngineOptions,
  type PositionLogprobs,
  type SampleOptions,
  type SampleResult,
} from "./engine.js";
import { responseFormatSchema } from "./response-format.js";
import { QueueFullError } from "./sequence-pool.js";
import { ServerMetrics, type FinishedReason } from "./server-metrics.js";
import { sha256File } from "./test-model.js";
import { parseToolAnswer, toolAnswerSchema, type FunctionTool, type ToolChoice } from "./tool-grammar.js";

export const SERVE_VERSION = "0.1.0";
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface ServeOptions extends EngineOptions {
  /** Default 127.0.0.1: nothing beyond this machine. */
  host?: string;
  /** Default 8000 (vLLM's); 0 picks a free port. */
  port?: number;
  /** The name `/v1/models` lists and requests must use; default the file name without `.gguf`. */
  servedModelName?: string;
  /** Told about each request (one line), for the terminal. */
  onRequest?: (line: string) => void;
  /** The model file's sha256 when the caller has just computed it (ensureTestModel); otherwise it is hashed here. */
  modelSha256?: string;
}

/** node-llama-cpp does not export its package.json: read it beside its entry point. */
function engineVersion(): string {
  const entry = fileURLToPath(import.meta.resolve("node-llama-cpp"));
  return (JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }).version;
}

export interface ModelServer {
  /** `http://host:port/v1`, for a client's baseURL. */
  baseURL: string;
  /** `http://host:port`. */
  url: string;
  modelName: string;
  engine: LlamaEngine;
  metrics: ServerMetrics;
  /** What `/version` answers: versions, the model file's digest, the settings. */
  fingerprint: ServerFingerprint;
  close(): Promise<void>;
}

export interface ServerFingerprint {
  version: string;
  server: "loclab-serve";
  engine: string;
  model: { name: string; path: string; sha256: string; max_model_len: number; vocab_size: number };
  settings: { parallel: number; threads: number; prefix_caching: boolean; max_waiting: number };
}

/**
 * Starts `loclab serve`: an OpenAI-compatible HTTP server with vLLM's field names over a GGUF
 * model on CPU. Routes: `GET /health /version /v1/models /metrics`, `POST /v1/chat/completions
 * /v1/completions /tokenize /detokenize`. A missing or unreadable model file fails here,
 * before the port opens.
 */
export async function startModelServer(options: ServeOptions): Promise<ModelServer> {
  const engine = await LlamaEngine.load(options);
  const modelName = options.servedModelName ?? engine.defaultModelName;
  const metrics = new ServerMetrics(modelName, () => ({ running: engine.pool.running, waiting: engine.pool.waiting }));
  const fingerprint: ServerFingerprint = {
    version: SERVE_VERSION,
    server: "loclab-serve",
    engine: `llama.cpp via node-llama-cpp ${engineVersion()} (CPU)`,
    model: {
      name: modelName,
      path: options.modelPath,
      sha256: options.modelSha256 ?? (await sha256File(options.modelPath)),
      max_model_len: engine.contextSize,
      vocab_size: engine.vocabularySize,
    },
    settings: {
      parallel: engine.options.parallel,
      threads: engine.options.threads,
      prefix_caching: engine.options.prefixCaching,
      max_waiting: engine.options.maxWaiting,
    },
  };
  const created = Math.floor(Date.now() / 1000);
  const handler = new RequestHandler(engine, metrics, modelName, fingerprint, created, options.onRequest);
  const server = createServer((req, res) => void handler.handle(req, res));
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, options.host ?? "127.0.0.1", () => resolve());
  }).catch(async (error: NodeJS.ErrnoException) => {
    await engine.close();
    throw new Error(
      `cannot listen on ${options.host ?? "127.0.0.1"}:${options.port ?? 8000}: ${error.code === "EADDRINUSE" ? "the port is in use" : error.message}`,
    );
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    modelName,
    engine,
    metrics,
    fingerprint,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

class RequestHandler {
  constructor(
    private readonly engine: LlamaEngine,
    private readonly metrics: ServerMetrics,
    private readonly modelName: string,
    private readonly fingerprint: ServerFingerprint,
    private readonly created: number,
    private readonly onRequest?: (line: string) => void,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const path = (req.url ?? "/").split("?")[0]!;
    const abort = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    let status = 200;
    try {
      const answer = await this.route(req, path, abort.signal);
      if (answer.kind === "text") {
        res.writeHead(200, { "content-type": answer.contentType });
        res.end(answer.body);
      } else {
        send(res, 200, answer.body);
      }
    } catch (error) {
      const apiError =
        error instanceof ApiError
          ? error
          : error instanceof QueueFullError
            ? new ApiError(503, error.message, "ServiceUnavailableError", null, 1)
            : (error as Error).name === "AbortError"
              ? new ApiError(499, "the client closed the connection", "ClientClosedRequest")
              : new ApiError(500, `internal error: ${(error as Error).message}`);
      status = apiError.status;
      if (!res.headersSent && !res.destroyed) {
        const headers =
          apiError.retryAfterSeconds !== undefined ? { "retry-after": String(apiError.retryAfterSeconds) } : undefined;
        send(res, apiError.status, apiError.body(), headers);
      }
    }
    this.onRequest?.(`${req.method} ${path} ${status} ${((performance.now() - started) / 1000).toFixed(2)} s`);
  }

  private async route(
    req: IncomingMessage,
    path: string,
    signal: AbortSignal,
  ): Promise<{ kind: "json"; body: unknown } | { kind: "text"; body: string; contentType: string }> {
    const method = req.method ?? "GET";
    const routes: Record<string, "GET" | "POST"> = {
      "/health": "GET",
      "/version": "GET",
      "/v1/models": "GET",
      "/metrics": "GET",
      "/v1/chat/completions": "POST",
      "/v1/completions": "POST",
      "/tokenize": "POST",
      "/detokenize": "POST",
    };
    const expected = routes[path];
    if (!expected)
      throw new ApiError(
        404,
        `no route ${method} ${path}; this server answers ${Object.entries(routes)
          .map(([p, m]) => `${m} ${p}`)
          .join(", ")}`,
      );
    if (method !== expected) throw new ApiError(405, `${path} takes ${expected}, not ${method}`);
    switch (path) {
      case "/health":
        return { kind: "text", body: "", contentType: "text/plain; charset=utf-8" };
      case "/version":
        return { kind: "json", body: this.fingerprint };
      case "/v1/models":
        return {
          kind: "json",
          body: {
            object: "list",
            data: [
              {
                id: this.modelName,
                object: "model",
                created: this.created,
                owned_by: "loclab",
                root: this.fingerprint.model.path,
                parent: null,
                max_model_len: this.engine.contextSize,
                permission: [],
              },
            ],
          },
        };
      case "/metrics":
        return { kind: "text", body: await this.metrics.text(), contentType: this.metrics.contentType };
      case "/tokenize":
        return { kind: "json", body: this.tokenize(parse(tokenizeRequestSchema, await readJson(req))) };
      case "/detokenize": {
        const body = parse(detokenizeRequestSchema, await readJson(req));
        this.checkModel(body.model);
        this.checkTokens(body.tokens, "tokens");
        return { kind: "json", body: { prompt: this.engine.detokenize(body.tokens) } };
      }
      case "/v1/chat/completions":
        return { kind: "json", body: await this.chat(parse(chatCompletionRequestSchema, await readJson(req)), signal) };
      default:
        return { kind: "json", body: await this.complete(parse(completionRequestSchema, await readJson(req)), signal) };
    }
  }

  private checkModel(model: string | undefined): void {
    if (model !== undefined && model !== this.modelName)
      throw new ApiError(404, `The model \`${model}\` does not exist.`, "NotFoundError", "model");
  }

  private checkTokens(tokens: readonly number[], field: string): void {
    const vocabulary = this.engine.vocabularySize;
    const bad = tokens.findIndex((token) => token >= vocabulary);
    if (bad >= 0)
      throw new ApiError(
        400,
        `${field}[${bad}]: token id ${tokens[bad]} is out of vocabulary (size ${vocabulary})`,
        "BadRequestError",
        field,
      );
  }

  private tokenize(body: z.infer<typeof tokenizeRequestSchema>): unknown {
    this.checkModel(body.model);
    const request = body as {
      prompt?: string;
      messages?: ChatCompletionRequest["messages"];
      tools?: FunctionTool[] | null;
      tool_choice?: ToolChoice | null;
      add_generation_prompt?: boolean;
      add_special_tokens: boolean;
    };
    const tokens =
      typeof request.prompt === "string"
        ? this.engine.tokenize(request.prompt, request.add_special_tokens)
        : this.engine.tokenize(
            this.chatText(
              request.messages!,
              request.tools ?? [],
              request.tool_choice ?? ((request.tools ?? []).length > 0 ? "auto" : "none"),
              request.add_generation_prompt,
            ),
            request.add_special_tokens,
          );
    return { count: tokens.length, max_model_len: this.engine.contextSize, tokens, token_strs: null };
  }

  private chatText(
    messages: ChatCompletionRequest["messages"],
    tools: readonly FunctionTool[],
    choice: ToolChoice,
    addGenerationPrompt = true,
  ): string {
    const special = this.engine.specialTokens;
    return renderChatPrompt({
      template: this.engine.chatTemplate,
      bosToken: special.bos,
      eosToken: special.eos,
      messages,
      tools,
      toolChoice: choice,
      addGenerationPrompt,
    });
  }

  /** The generation budget: `max_tokens` if given (checked against the window), else what the window leaves. */
  private budget(promptTokens: number, maxTokens: number | null | undefined): number {
    const window = this.engine.contextSize;
    if (promptTokens > window) throw promptTooLong(window, promptTokens);
    if (maxTokens === null || maxTokens === undefined) return window - promptTokens;
    if (promptTokens + maxTokens > window) throw maxTokensTooLarge(window, promptTokens, maxTokens);
    return maxTokens;
  }

  private async chat(body: ChatCompletionRequest, signal: AbortSignal): Promise<unknown> {
    const started = performance.now();
    this.checkModel(body.model);
    const tools = (body.tools ?? []) as FunctionTool[];
    const choice: ToolChoice =
      (body.tool_choice as ToolChoice | null | undefined) ?? (tools.length > 0 ? "auto" : "none");
    if (typeof choice === "object" && !tools.some((tool) => tool.function.name === choice.function.name)) {
      throw new ApiError(
        400,
        `tool_choice names the function ${JSON.stringify(choice.function.name)}, which is not among the tools`,
        "BadRequestError",
        "tool_choice",
      );
    }
    if (choice === "required" && tools.length === 0)
      throw new ApiError(400, `tool_choice "required" needs tools`, "BadRequestError", "tool_choice");
    const withTools = tools.length > 0 && choice !== "none";
    const format = responseFormatSchema(body.response_format);
    if (format && withTools)
      throw new ApiError(
        400,
        'response_format with tools needs tool_choice "none" (the tool grammar and the schema cannot both decode one answer)',
        "BadRequestError",
        "response_format",
      );
    const prompt = this.engine.tokenize(this.chatText(body.messages, tools, choice), false);
    const maxTokens = this.budget(prompt.length, body.max_completion_tokens ?? body.max_tokens);
    const grammar = withTools
      ? await this.engine.jsonGrammar(toolAnswerSchema(tools, choice))
      : format
        ? await this.engine.jsonGrammar(format.grammar)
        : undefined;
    const seed = body.seed ?? randomInt(2 ** 31);
    const { generated, finish, stoppedBy, positions } = await this.generate(prompt, signal, {
      sampling: {
        ...this.sampling(body, maxTokens),
        seed,
        grammar,
        ...(grammar ? { complete: isCompleteJsonObject } : {}),
      },
      logprobs: (tokens) =>
        body.logprobs && tokens.length > 0 ? { from: prompt.length, topN: body.top_logprobs ?? 0 } : undefined,
    });
    let text = this.engine.detokenize(generated);
    if (stoppedBy !== undefined) text = text.slice(0, text.indexOf(stoppedBy));
    if (format) text = format.finish(text);
    let message: Record<string, unknown> = {
      role: "assistant",
      content: text,
      tool_calls: [],
      reasoning: null,
    };
    let finishReason: FinishedReason = finish;
    if (withTools) {
      const answer = parseToolAnswer(text, tools);
      if (answer.kind === "call") {
        message = {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: toolCallId(seed, prompt, generated),
              type: "function",
              function: { name: answer.name, arguments: JSON.stringify(answer.arguments) },
            },
          ],
          reasoning: null,
        };
        finishReason = finish === "length" ? "length" : "tool_calls";
      } else if (answer.kind === "text") {
        message = { ...message, content: answer.content };
      }
    }
    this.metrics.finished({
      promptTokens: prompt.length,
      generationTokens: generated.length,
      seconds: (performance.now() - started) / 1000,
      reason: finishReason,
    });
    return {
      id: `chatcmpl-${randomBytes(16).toString("hex")}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: this.modelName,
      choices: [
        {
          index: 0,
          message,
          logprobs: positions.length > 0 ? { content: positions.map((position) => this.chatLogprob(position)) } : null,
          finish_reason: finishReason,
          stop_reason: stoppedBy ?? null,
        },
      ],
      usage: usage(prompt, generated),
      prompt_logprobs: null,
    };
  }

  /** The sampling fields chat and completions share, with vLLM's defaults. */
  private sampling(
    body: ChatCompletionRequest | CompletionRequest,
    maxTokens: number,
  ): Omit<SampleOptions, "seed" | "signal"> {
    return {
      temperature: body.temperature ?? 1,
      topP: body.top_p ?? 1,
      maxTokens,
      stop: stops(body.stop),
      ignoreEos: body.ignore_eos ?? false,
    };
  }

  /**
   * One request's work on one leased sequence: sample (unless `sampling` is absent, as for
   * `max_tokens: 0`), then the log-probabilities `logprobs` asks for given the sampled tokens.
   * An aborted request is counted (`finished_reason="abort"`) and rethrown as an AbortError.
   */
  private async generate(
    prompt: readonly number[],
    signal: AbortSignal,
    work: {
      sampling: Omit<SampleOptions, "signal"> | undefined;
      logprobs: (generated: readonly number[]) => { from: number; topN: number } | undefined;
    },
  ): Promise<{ generated: number[]; finish: "stop" | "length"; stoppedBy?: string; positions: PositionLogprobs[] }> {
    const started = performance.now();
    const lease = await this.engine.acquire(prompt, signal);
    let result: SampleResult = { tokens: [], finishReason: "length" };
    let positions: PositionLogprobs[] = [];
    try {
      if (work.sampling) result = await this.engine.sample(lease.item, prompt, { ...work.sampling, signal });
      const wanted = result.finishReason === "abort" ? undefined : work.logprobs(result.tokens);
      if (wanted)
        positions = await this.engine.logprobs(lease.item, [...prompt, ...result.tokens], wanted.from, wanted.topN);
    } finally {
      lease.release();
    }
    if (result.finishReason === "abort") {
      // As vLLM counts prefill tokens processed: an abort during the prompt's evaluation counts only what was evaluated.
      this.metrics.finished({
        promptTokens: result.promptTokensEvaluated ?? prompt.length,
        generationTokens: result.tokens.length,
        seconds: (performance.now() - started) / 1000,
        reason: "abort",
      });
      throw Object.assign(new Error("aborted"), { name: "AbortError" });
    }
    return {
      generated: result.tokens,
      finish: result.finishReason,
      ...(result.stoppedBy !== undefined ? { stoppedBy: result.stoppedBy } : {}),
      positions,
    };
  }

  private chatLogprob(position: PositionLogprobs): unknown {
    const entry = (token: number, logprob: number) => {
      const text = this.engine.tokenText(token);
      return { token: text, logprob, bytes: [...Buffer.from(text, "utf8")] };
    };
    return {
      ...entry(position.token, position.logprob),
      top_logprobs: position.top.map((top) => entry(top.token, top.logprob)),
    };
  }

  private async complete(body: CompletionRequest, signal: AbortSignal): Promise<unknown> {
    const started = performance.now();
    this.checkModel(body.model);
    const prompt =
      typeof body.prompt === "string"
        ? this.engine.tokenize(body.prompt, true)
        : typeof body.prompt[0] === "string"
          ? this.engine.tokenize(body.prompt[0], true)
          : (body.prompt as number[]);
    if (typeof body.prompt !== "string" && typeof body.prompt[0] === "number") this.checkTokens(prompt, "prompt");
    const maxTokens = this.budget(prompt.length, body.max_tokens ?? 16);
    const echo = body.echo ?? false;
    const wantLogprobs = body.logprobs !== null && body.logprobs !== undefined;
    const wantPromptLogprobs = body.prompt_logprobs !== null && body.prompt_logprobs !== undefined;
    const topN = Math.max(body.logprobs ?? 0, body.prompt_logprobs ?? 0);
    const { generated, finish, stoppedBy, positions } = await this.generate(prompt, signal, {
      sampling:
        maxTokens > 0 ? { ...this.sampling(body, maxTokens), seed: body.seed ?? randomInt(2 ** 31) } : undefined,
      logprobs: (tokens) => {
        const needPrompt = wantPromptLogprobs || (wantLogprobs && echo);
        if (!needPrompt && !(wantLogprobs && tokens.length > 0)) return undefined;
        return { from: needPrompt ? 1 : prompt.length, topN };
      },
    });
    // positions cover the absolute token indexes [from, n).
    const from = prompt.length + generated.length - positions.length;
    const at = (index: number) => positions[index - from];
    let completionText = this.engine.detokenize(generated);
    if (stoppedBy !== undefined) completionText = completionText.slice(0, completionText.indexOf(stoppedBy));
    const text = echo ? this.engine.detokenize(prompt) + completionText : completionText;
    let logprobs: unknown = null;
    if (wantLogprobs) {
      const shown = echo ? [...prompt, ...generated] : generated;
      const base = echo ? 0 : prompt.length;
      const pieces = this.engine.pieces(shown);
      logprobs = {
        text_offset: pieces.offsets,
        token_logprobs: shown.map((_, i) => at(base + i)?.logprob ?? null),
        tokens: pieces.pieces,
        top_logprobs: shown.map((_, i) => {
          const position = at(base + i);
          if (!position) return null;
          const top: Record<string, number> = {};
          for (const alternative of position.top) top[this.engine.tokenText(alternative.token)] = alternative.logprob;
          top[pieces.pieces[i]!] ??= position.logprob;
          return top;
        }),
      };
    }
    const promptLogprobs = wantPromptLogprobs
      ? prompt.map((token, index) => {
          const position = at(index);
          if (!position) return null;
          const entries: Record<string, { logprob: number; rank: number; decoded_token: string }> = {};
          entries[String(token)] = {
            logprob: position.logprob,
            rank: position.rank,
            decoded_token: this.engine.tokenText(token),
          };
          position.top.forEach((alternative, rank) => {
            entries[String(alternative.token)] ??= {
              logprob: alternative.logprob,
              rank: rank + 1,
              decoded_token: this.engine.tokenText(alternative.token),
            };
          });
          return entries;
        })
      : null;
    this.metrics.finished({
      promptTokens: prompt.length,
      generationTokens: generated.length,
      seconds: (performance.now() - started) / 1000,
      reason: finish,
    });
    return {
      id: `cmpl-${randomBytes(16).toString("hex")}`,
      object: "text_completion",
      created: Math.floor(Date.now() / 1000),
      model: this.modelName,
      choices: [
        {
          index: 0,
          text,
          logprobs,
          finish_reason: finish,
          stop_reason: stoppedBy ?? null,
          prompt_logprobs: promptLogprobs,
        },
      ],
      usage: usage(prompt, generated),
    };
  }
}

/**
 * The id of a tool call: a digest of the seed, the prompt and the answer, so that the same
 * seeded request gives the same id and a seeded conversation replays byte for byte (the id
 * goes back into the next prompt as `tool_call_id`). vLLM draws it at random; same shape.
 */
function toolCallId(seed: number, prompt: readonly number[], generated: readonly number[]): string {
  const digest = createHash("sha256")
    .update(JSON.stringify([seed, prompt, generated]))
    .digest("hex");
  return `chatcmpl-tool-${digest.slice(0, 32)}`;
}

function usage(prompt: readonly number[], generated: readonly number[]) {
  return {
    prompt_tokens: prompt.length,
    total_tokens: prompt.length + generated.length,
    completion_tokens: generated.length,
    prompt_tokens_details: null,
  };
}

function isCompleteJsonObject(text: string): boolean {
  if (!text.trimEnd().endsWith("}")) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function stops(stop: string | string[] | null | undefined): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  return (Array.isArray(stop) ? stop : [stop]).filter((s) => s.length > 0);
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (!result.success) throw new ApiError(400, describeIssues(result.error), "BadRequestError");
  return result.data;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, `request body over ${MAX_BODY_BYTES / 1024 / 1024} MiB`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `request body is not valid JSON: ${(error as Error).message}`);
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}
