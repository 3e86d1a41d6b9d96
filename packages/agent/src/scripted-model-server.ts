import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { chatCompletionRequestSchema, type ChatCompletionRequest } from "./chat-completion-request.js";
import type { ChatCompletionResponse } from "./chat-completion-response.js";
import { isScriptedFault, type ModelScript, type ScriptedReply, type ScriptTurn } from "./script-turn.js";

/** What the server received, in arrival order, for assertions. Bad requests are recorded too. */
export interface ReceivedRequest {
  method: string;
  path: string;
  /** The body exactly as sent. */
  raw: string;
  /** The validated body; absent when the request was rejected. */
  body?: ChatCompletionRequest;
  /** The script turn that answered it; absent for rejected requests (they consume no turn). */
  turn?: number;
  /** The status the server answered with; absent when the connection was cut. */
  status?: number;
  /** The client closed the connection while a `delay` turn was still waiting (it gave up, or was cancelled). */
  clientClosed?: boolean;
}

export interface ScriptedModelServerOptions {
  script: ModelScript;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The models `GET /v1/models` lists, as vLLM does for its served model names. Default `["scripted"]`. */
  models?: readonly string[];
  /** The context window `GET /v1/models` advertises for each model (vLLM's `max_model_len`); absent when not given. */
  maxModelLen?: number;
}

export interface ScriptedModelServer {
  /** The OpenAI-style base URL, `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: ReceivedRequest[];
  /** The most chat-completion requests it was answering at once (a concurrency limit's check, measured by the server). */
  peakInFlight(): number;
  close(): Promise<void>;
}

const chatCompletionsPath = "/v1/chat/completions";

/**
 * An honest fake of an OpenAI-compatible chat-completions endpoint (no mocks: docs/architecture.md): a real
 * `node:http` server on 127.0.0.1 that validates each request and answers it with the next turn
 * of a script, including transport faults, so the client's retry and parsing paths run over
 * real sockets. Non-streaming only. When the script runs out it answers HTTP 500 with an error
 * that says so, rather than hanging or inventing a reply.
 *
 * @example
 * const server = await startScriptedModelServer({ script: [{ fault: "http-503" }, { content: "done" }] });
 * // point a client at server.url; afterwards: server.requests[1].body.messages
 * await server.close();
 */
export async function startScriptedModelServer(options: ScriptedModelServerOptions): Promise<ScriptedModelServer> {
  const requests: ReceivedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let nextTurn = 0;

  const server = createServer((req, res) => {
    void readBody(req).then((raw) => {
      const record: ReceivedRequest = { method: req.method ?? "", path: req.url ?? "", raw };
      requests.push(record);
      handle(record, res);
    });
  });

  let running = 0;
  let peak = 0;
  let served = 0;
  function handle(record: ReceivedRequest, res: ServerResponse): void {
    if (record.method === "GET" && serveInfo(record, res)) return;
    if (record.method === "POST" && record.path === "/tokenize") return serveTokenize(record, res);
    if (record.method !== "POST" || record.path !== chatCompletionsPath) {
      record.status = 404;
      sendError(
        res,
        404,
        `no route for ${record.method} ${record.path}; only POST ${chatCompletionsPath}, POST /tokenize, GET /v1/models, /health, /version, /metrics`,
        "not_found",
      );
      return;
    }
    running += 1;
    peak = Math.max(peak, running);
    res.on("close", () => {
      running -= 1;
      served += 1;
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(record.raw);
    } catch {
      record.status = 400;
      sendError(res, 400, "request body is not valid JSON", "invalid_request_error");
      return;
    }
    const checked = chatCompletionRequestSchema.safeParse(parsed);
    if (!checked.success) {
      record.status = 400;
      const problems = checked.error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`);
      sendError(res, 400, `invalid chat-completions request: ${problems.join("; ")}`, "invalid_request_error");
      return;
    }
    record.body = checked.data;
    const index = nextTurn++;
    record.turn = index;
    const turn = typeof options.script === "function" ? options.script(checked.data, index) : options.script[index];
    if (turn === undefined) {
      record.status = 500;
      const scripted =
        typeof options.script === "function" ? "the script function" : `the script's ${options.script.length} turn(s)`;
      sendError(
        res,
        500,
        `scripted model server: script exhausted: request #${index + 1} has no turn left (${scripted} used up)`,
        "script_exhausted",
      );
      return;
    }
    answer(record, res, checked.data, index, turn);
  }

  /**
   * The read-only routes a runner probes, in vLLM's shapes: `/health` (200, empty body),
   * `/version`, `/v1/models` (the served names), `/metrics` (Prometheus text with vLLM's gauge
   * names: requests in flight as running, none waiting: this server never queues).
   */
  function serveInfo(record: ReceivedRequest, res: ServerResponse): boolean {
    const path = record.path.split("?")[0];
    if (path === "/health") {
      record.status = 200;
      res.writeHead(200).end();
      return true;
    }
    if (path === "/version") {
      record.status = 200;
      sendJson(res, 200, { version: "loclab-scripted" });
      return true;
    }
    if (path === "/v1/models") {
      record.status = 200;
      sendJson(res, 200, {
        object: "list",
        data: (options.models ?? ["scripted"]).map((id) => ({
          id,
          object: "model",
          created: 1_767_225_600,
          owned_by: "loclab",
          ...(options.maxModelLen !== undefined ? { max_model_len: options.maxModelLen } : {}),
        })),
      });
      return true;
    }
    if (path === "/metrics") {
      record.status = 200;
      res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
      res.end(
        [
          "# TYPE vllm:num_requests_running gauge",
          `vllm:num_requests_running{model_name="${options.models?.[0] ?? "scripted"}"} ${running}`,
          "# TYPE vllm:num_requests_waiting gauge",
          `vllm:num_requests_waiting{model_name="${options.models?.[0] ?? "scripted"}"} 0`,
          "# TYPE vllm:request_success_total counter",
          `vllm:request_success_total{finished_reason="stop",model_name="${options.models?.[0] ?? "scripted"}"} ${served}`,
          "",
        ].join("\n"),
      );
      return true;
    }
    return false;
  }

  /**
   * vLLM's `/tokenize` (at the server root) for a `prompt`: `count` by the rough rule of
   * `roughTokens` (no tokenizer here), `tokens` as that many ids, and `max_model_len` when set.
   * Consumes no script turn.
   */
  function serveTokenize(record: ReceivedRequest, res: ServerResponse): void {
    let prompt: unknown;
    try {
      prompt = (JSON.parse(record.raw) as { prompt?: unknown }).prompt;
    } catch {
      prompt = undefined;
    }
    if (typeof prompt !== "string") {
      record.status = 400;
      sendError(res, 400, "tokenize: the body needs a prompt string", "invalid_request_error");
      return;
    }
    const count = roughTokens(prompt);
    record.status = 200;
    sendJson(res, 200, {
      count,
      tokens: Array.from({ length: count }, (_, i) => i),
      ...(options.maxModelLen !== undefined ? { max_model_len: options.maxModelLen } : {}),
    });
  }

  /** Keeps a timer until the response closes (or the server does), whichever comes first. */
  function untilClosed(res: ServerResponse, timer: NodeJS.Timeout, record: ReceivedRequest): void {
    timers.add(timer);
    res.on("close", () => {
      if (timers.has(timer)) record.clientClosed = true;
      clearTimeout(timer);
      timers.delete(timer);
    });
  }

  function answer(
    record: ReceivedRequest,
    res: ServerResponse,
    request: ChatCompletionRequest,
    index: number,
    turn: ScriptTurn,
  ): void {
    if (!isScriptedFault(turn)) {
      record.status = 200;
      sendJson(res, 200, completionFor(request, index, turn));
      return;
    }
    switch (turn.fault) {
      case "http-500":
        record.status = 500;
        sendError(res, 500, "scripted fault: internal server error", "server_error");
        return;
      case "http-503":
        record.status = 503;
        sendError(res, 503, "scripted fault: service unavailable", "server_error", turn.retryAfter);
        return;
      case "http-429":
        record.status = 429;
        sendError(res, 429, "scripted fault: rate limited", "rate_limit_error", turn.retryAfter);
        return;
      case "http-400":
        record.status = 400;
        sendError(res, 400, turn.message ?? "scripted fault: bad request", "invalid_request_error");
        return;
      case "trickle": {
        record.status = 200;
        res.writeHead(200, { "content-type": "application/json" });
        res.write("{");
        untilClosed(
          res,
          setInterval(() => res.destroyed || res.write(" "), turn.everyMs),
          record,
        );
        return;
      }
      case "cut-connection":
        res.socket?.destroy();
        return;
      case "invalid-json":
        record.status = 200;
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id": "chatcmpl-broken", "choices": [');
        return;
      case "delay": {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (res.destroyed || res.socket === null) return;
          if (turn.then === undefined) {
            res.socket.destroy();
            return;
          }
          answer(record, res, request, index, turn.then);
        }, turn.ms);
        // The client may give up first; then there is no one left to answer.
        untilClosed(res, timer, record);
        return;
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    peakInFlight: () => peak,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function completionFor(request: ChatCompletionRequest, index: number, reply: ScriptedReply): ChatCompletionResponse {
  const toolCalls = (reply.toolCalls ?? []).map((call, position) => ({
    id: call.id ?? `call_${index}_${position}`,
    type: "function" as const,
    function: { name: call.name, arguments: call.arguments },
  }));
  const content = reply.content ?? null;
  // A real server renders the tool schemas into the prompt: they count as prompt tokens here too.
  const promptTokens =
    reply.usage?.promptTokens ??
    roughTokens(JSON.stringify(request.messages) + (request.tools ? JSON.stringify(request.tools) : ""));
  const completionTokens =
    reply.usage?.completionTokens ??
    roughTokens((content ?? "") + toolCalls.map((call) => call.function.name + call.function.arguments).join(""));
  return {
    id: `chatcmpl-scripted-${index}`,
    object: "chat.completion",
    // Fixed rather than the clock, so that recorded responses are reproducible.
    created: 1_767_225_600 + index,
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** About four characters per token: enough for budget tests, not a tokenizer. */
function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string, type: string, retryAfter?: number): void {
  sendJson(
    res,
    status,
    { error: { message, type, code: null, param: null } },
    retryAfter === undefined ? {} : { "retry-after": String(retryAfter) },
  );
}
