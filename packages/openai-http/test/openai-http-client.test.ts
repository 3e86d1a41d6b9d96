import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createOpenAIHttpClient,
  ModelAnswerError,
  ModelRequestError,
  ModelTransportError,
  type RetryRecord,
  retryPolicy,
  retryWaitMs,
  serverRoot,
} from "../src/index.js";

// The one client over real HTTP, against a server whose answers each test writes: every row of
// the taxonomy in model-errors.ts, seen from the wire. (This package may import no other loclab
// package, so it has its own small server rather than the agent's scripted one.)
const SECRET = "hunter2-secret";
type Handler = (request: IncomingMessage, response: ServerResponse, body: string) => void;
let server: Server;
let port: number;
let handlers: Handler[] = [];
const seen: { method: string; url: string; authorization: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        authorization: request.headers.authorization,
        body,
      });
      const handler = handlers.length > 1 ? handlers.shift()! : handlers[0];
      if (!handler) throw new Error("no handler");
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Answers in order; the last one repeats. */
function answers(...list: Handler[]) {
  handlers = list;
  seen.length = 0;
}
const json =
  (value: unknown, status = 200, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(JSON.stringify(value));
  };
const chatAnswer = json({
  id: "c",
  object: "chat.completion",
  created: 0,
  model: "m",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "hello" } }],
});
/** Cut off after the headers and part of the body. */
const cutBody: Handler = (_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
  response.write('{"choices":');
  setTimeout(() => response.destroy(), 10);
};

const fast = { maxRetries: 2, backoffMs: 1, jitter: () => 0 };
const client = (retry = {}) =>
  createOpenAIHttpClient({
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKeyEnv: "LOCLAB_TEST_NO_KEY",
    retry: { ...fast, ...retry },
  });
const contentOf = (raw: unknown) =>
  z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1) }).parse(raw).choices[0]!
    .message.content;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("createOpenAIHttpClient: the three calls", () => {
  it("chat, completions and tokenize go to their paths, with the same retries and parse", async () => {
    answers(chatAnswer);
    const chat = await client().chat({ model: "m", messages: [{ role: "user", content: "hi" }] }, contentOf);
    expect(chat.value).toBe("hello");
    expect(chat.retries).toEqual([]);
    answers(json({ choices: [{ text: "abc", index: 0, finish_reason: "length", logprobs: null }] }));
    const completion = await client().completions({ model: "m", prompt: "abc", echo: true }, (raw) => raw);
    expect((completion.value as { choices: { text: string }[] }).choices[0]!.text).toBe("abc");
    answers(json({ count: 3, max_model_len: 10 }));
    const tokens = await client().tokenize({ model: "m", prompt: "abc" }, (raw) => (raw as { count: number }).count);
    expect(tokens.value).toBe(3);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual(["POST /tokenize"]);
    expect(JSON.parse(seen[0]!.body)).toEqual({ model: "m", prompt: "abc" });
  });

  it("the server root is the base URL without /v1 and without credentials", () => {
    expect(serverRoot("http://u:p@h:8000/v1")).toBe("http://h:8000");
    expect(serverRoot("http://h:8000/v1/")).toBe("http://h:8000");
    expect(serverRoot("https://h/api/v1")).toBe("https://h/api");
  });
});

describe("the one taxonomy", () => {
  it("a 503, a 408 and a 429 are transport faults, retried (after Retry-After) and recorded", async () => {
    answers(
      json({ error: "busy" }, 503),
      json({ error: "slow" }, 408),
      json({}, 429, { "retry-after": "0.2" }),
      chatAnswer,
    );
    const started = performance.now();
    const answer = await client({ maxRetries: 3 }).chat({ model: "m", messages: [] }, contentOf);
    expect(answer.value).toBe("hello");
    expect(answer.retries.map((retry) => [retry.attempt, retry.error])).toEqual([
      [1, "http-5xx"],
      [2, "timeout"],
      [3, "rate-limited"],
    ]);
    expect(answer.retries[2]!.waitedMs).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(195);
  });

  it("a body cut after the headers is a connection fault, retried; when retries run out the last fault is thrown", async () => {
    answers(cutBody);
    const error = await failure(client().completions({ model: "m", prompt: "x" }, (raw) => raw));
    expect(error).toBeInstanceOf(ModelTransportError);
    const transport = error as ModelTransportError;
    expect(transport.kind).toBe("transport");
    expect(transport.errorClass).toBe("connection");
    expect(transport.attempts).toBe(3);
    expect(transport.retries.map((retry) => retry.error)).toEqual(["connection", "connection"]);
    expect(transport.message).toMatch(
      /^model transport failed after 3 attempt\(s\) \(connection\): the answer was cut off/,
    );
    expect(seen).toHaveLength(3);
  });

  it("a 400 is a request error, not retried, with the transport faults before it recorded", async () => {
    answers(json({ error: "busy" }, 502), json({ error: { message: "bad messages" } }, 400));
    const error = await failure(client().chat({ model: "m", messages: [] }, contentOf));
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as ModelRequestError).status).toBe(400);
    expect((error as ModelRequestError).kind).toBe("request");
    expect((error as ModelRequestError).retries.map((retry) => retry.error)).toEqual(["http-5xx"]);
    expect(seen).toHaveLength(2);
  });

  it("a 200 that is not the endpoint's JSON is an invalid answer, retried as invalid-json", async () => {
    answers(
      (_request, response) => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end("<html>proxy error</html>");
      },
      json({ choices: [] }),
      chatAnswer,
    );
    const answer = await client().chat({ model: "m", messages: [] }, contentOf);
    expect(answer.value).toBe("hello");
    expect(answer.retries.map((retry) => retry.error)).toEqual(["invalid-json", "invalid-json"]);
    expect(answer.retries[0]!.message).toMatch(/not valid JSON/);
    expect(answer.retries[1]!.message).toMatch(/^response is not a chat completion: choices: /);

    answers(json({ choices: [] }));
    const error = await failure(client().chat({ model: "m", messages: [] }, contentOf));
    expect(error).toBeInstanceOf(ModelAnswerError);
    expect((error as ModelAnswerError).kind).toBe("invalid-answer");
    expect((error as ModelAnswerError).retryable).toBe(true);
    expect((error as ModelAnswerError).message).toMatch(
      /^model answer unusable after 3 attempt\(s\): response is not a chat completion/,
    );
  });

  it("an answer the parser calls unusable for good is asked once", async () => {
    answers(json({ choices: [{ text: "x", logprobs: null }] }));
    const error = await failure(
      client().completions({ model: "m", prompt: "x" }, () => {
        throw new ModelAnswerError({ message: "no logprobs", retryable: false });
      }),
    );
    expect(error).toBeInstanceOf(ModelAnswerError);
    expect((error as ModelAnswerError).retryable).toBe(false);
    expect((error as ModelAnswerError).message).toBe("model answer unusable after 1 attempt(s): no logprobs");
    expect(seen).toHaveLength(1);
  });

  it("an attempt over its request timeout is a timeout; one over the call's deadline is not retried", async () => {
    const silent: Handler = () => undefined;
    answers(silent);
    const timeout = await failure(
      client({ requestTimeoutMs: 100, maxRetries: 1 }).chat({ model: "m", messages: [] }, contentOf),
    );
    expect((timeout as ModelTransportError).errorClass).toBe("timeout");
    expect((timeout as ModelTransportError).retries.map((retry) => retry.error)).toEqual(["timeout"]);
    answers(silent);
    const deadline = await failure(
      client({ requestTimeoutMs: 10_000, callDeadlineMs: 150 }).chat({ model: "m", messages: [] }, contentOf),
    );
    expect((deadline as ModelTransportError).errorClass).toBe("deadline");
    expect((deadline as ModelTransportError).attempts).toBe(1);
    expect(seen).toHaveLength(1);
  });

  it("the caller's signal aborts the call in flight with its own reason", async () => {
    answers(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("wall budget spent")), 50);
    const error = await failure(client().chat({ model: "m", messages: [] }, contentOf, { signal: controller.signal }));
    expect((error as Error).message).toBe("wall budget spent");
  });

  it("a refused connection is a connection fault", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const deadPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(
      createOpenAIHttpClient({ baseURL: `http://127.0.0.1:${deadPort}/v1`, retry: { ...fast, maxRetries: 0 } }).chat(
        { model: "m", messages: [] },
        contentOf,
      ),
    );
    expect((error as ModelTransportError).errorClass).toBe("connection");
  });
});

describe("keys and credentials", () => {
  it("URL credentials go as HTTP Basic and appear in no error, retry or recorded URL", async () => {
    answers((request, response) => {
      response.writeHead(503, { "content-type": "text/plain" });
      response.end(`overloaded; you sent ${request.headers.authorization} as alice:${SECRET}`);
    });
    const withCredentials = createOpenAIHttpClient({
      baseURL: `http://alice:${SECRET}@127.0.0.1:${port}/v1`,
      apiKeyEnv: "LOCLAB_TEST_NO_KEY",
      retry: fast,
    });
    expect(withCredentials.baseURL).toBe(`http://127.0.0.1:${port}/v1`);
    const error = (await failure(withCredentials.tokenize({ prompt: "x" }, (raw) => raw))) as ModelTransportError;
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from(`alice:${SECRET}`).toString("base64")}`);
    expect(seen[0]!.url).toBe("/tokenize");
    const texts = [error.message, ...error.retries.map((retry: RetryRecord) => retry.message)];
    for (const text of texts) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(Buffer.from(`alice:${SECRET}`).toString("base64"));
    }
  });

  it("a key from the named environment variable goes as Bearer and is redacted from errors", async () => {
    process.env.LOCLAB_TEST_KEY = "sk-test-0123456789";
    try {
      answers((request, response) => {
        response.writeHead(400, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: { message: `bad key ${request.headers.authorization}` } }));
      });
      const keyed = createOpenAIHttpClient({
        baseURL: `http://127.0.0.1:${port}/v1`,
        apiKeyEnv: "LOCLAB_TEST_KEY",
        retry: fast,
      });
      const error = (await failure(keyed.chat({ model: "m", messages: [] }, contentOf))) as ModelRequestError;
      expect(seen[0]!.authorization).toBe("Bearer sk-test-0123456789");
      expect(error.message).toContain("bad key Bearer [redacted]");
      expect(keyed.redact("echo sk-test-0123456789")).toBe("echo [redacted]");
    } finally {
      delete process.env.LOCLAB_TEST_KEY;
    }
  });
});

describe("the retry policy", () => {
  it("waits max(backoff, Retry-After), doubling to the cap, stretched by at most a quarter", () => {
    const policy = retryPolicy({ backoffMs: 1_000, maxBackoffMs: 5_000, jitter: () => 0 });
    expect([1, 2, 3, 4].map((attempt) => retryWaitMs(policy, attempt))).toEqual([1_000, 2_000, 4_000, 5_000]);
    expect(retryWaitMs(policy, 1, 3_000)).toBe(3_000);
    expect(retryWaitMs({ ...policy, jitter: () => 0.999 }, 1)).toBe(1_250);
  });

  it("names the field that is out of range", () => {
    expect(() => retryPolicy({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => retryPolicy({ requestTimeoutMs: Number.POSITIVE_INFINITY })).toThrow(/requestTimeoutMs/);
    expect(() => retryPolicy({ callDeadlineMs: 0 })).toThrow(/callDeadlineMs/);
    expect(retryPolicy({ callDeadlineMs: Number.POSITIVE_INFINITY }).callDeadlineMs).toBe(Number.POSITIVE_INFINITY);
  });
});
