import { afterEach, describe, expect, it } from "vitest";
import { ModelRequestError, ModelTransportError } from "@loclab/openai-http";
import {
  createModelClient,
  startScriptedModelServer,
  type ModelClientOptions,
  type ModelScript,
  type ScriptedModelServer,
  type ToolDefinition,
} from "../src/index.js";

// Every test talks real HTTP to a scripted server on 127.0.0.1; backoff is 1 ms to stay fast.
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ModelScript): Promise<ScriptedModelServer> {
  server = await startScriptedModelServer({ script });
  return server;
}

function clientFor(url: string, options: Partial<ModelClientOptions> = {}) {
  // No jitter, so that the waits of the backoff can be checked exactly; jitter has its own test.
  return createModelClient({
    baseURL: url,
    model: "scripted-model",
    backoffMs: 1,
    timeoutMs: 2_000,
    jitter: () => 0,
    ...options,
  });
}

const viewFile: ToolDefinition = {
  name: "view_file",
  description: "Show a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const user = [{ role: "user" as const, content: "Where is the bug?" }];

describe("model client over the scripted server", () => {
  it("round-trips a tool-call turn and a text turn", async () => {
    const { url, requests } = await serve([
      {
        toolCalls: [{ name: "view_file", arguments: '{"path": "src/app.py"}' }],
        usage: { promptTokens: 120, completionTokens: 9 },
      },
      { content: "The bug is in src/app.py", finishReason: "length" },
    ]);
    const client = clientFor(url, { temperature: 0, seed: 7, maxOutputTokens: 256 });

    const first = await client.complete({ messages: user, tools: [viewFile] });
    expect(first.message).toEqual({
      content: null,
      toolCalls: [{ id: "call_0_0", name: "view_file", arguments: '{"path": "src/app.py"}' }],
    });
    expect(first.finishReason).toBe("tool_calls");
    expect(first.usage).toEqual({ promptTokens: 120, completionTokens: 9, totalTokens: 129 });
    expect(first.retries).toEqual([]);
    expect(first.latencyMs).toBeGreaterThan(0);

    const second = await client.complete({
      messages: [
        ...user,
        { role: "assistant", content: null, toolCalls: first.message.toolCalls },
        { role: "tool", toolCallId: "call_0_0", content: "1: def main(): ..." },
      ],
      tools: [viewFile],
    });
    expect(second.message).toEqual({ content: "The bug is in src/app.py", toolCalls: [] });
    expect(second.finishReason).toBe("length");
    // Default usage is a rough character count, but it is always present and consistent.
    expect(second.usage!.promptTokens).toBeGreaterThan(0);
    expect(second.usage!.totalTokens).toBe(second.usage!.promptTokens + second.usage!.completionTokens);

    // The server recorded what the client sent: model, options, messages and tools.
    expect(requests).toHaveLength(2);
    const sent = requests[1]!.body!;
    expect(sent.model).toBe("scripted-model");
    expect([sent.temperature, sent.seed, sent.max_tokens]).toEqual([0, 7, 256]);
    expect(sent.tools).toEqual([{ type: "function", function: viewFile }]);
    expect(sent.messages).toEqual([
      { role: "user", content: "Where is the bug?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_0_0", type: "function", function: { name: "view_file", arguments: '{"path": "src/app.py"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_0_0", content: "1: def main(): ..." },
    ]);
  });

  it("keeps malformed tool-call arguments as written", async () => {
    const { url } = await serve([{ toolCalls: [{ name: "search_code", arguments: '{"query": "foo"', id: "c1" }] }]);
    const { message } = await clientFor(url).complete({ messages: user });
    expect(message.toolCalls).toEqual([{ id: "c1", name: "search_code", arguments: '{"query": "foo"' }]);
  });

  it.each([
    [{ fault: "http-500" as const }, "http-5xx"],
    [{ fault: "http-503" as const }, "http-5xx"],
    [{ fault: "delay" as const, ms: 1_000 }, "timeout"],
    [{ fault: "cut-connection" as const }, "connection"],
    [{ fault: "invalid-json" as const }, "invalid-json"],
  ])("retries %j, records it as %s, and returns the next reply", async (fault, errorClass) => {
    const { url, requests } = await serve([fault, { content: "recovered" }]);
    const result = await clientFor(url, { timeoutMs: 150, backoffMs: 2 }).complete({ messages: user });
    expect(result.message.content).toBe("recovered");
    expect(result.retries).toEqual([{ attempt: 1, error: errorClass, message: expect.any(String), waitedMs: 2 }]);
    expect(result.retries[0]!.message.length).toBeGreaterThan(0);
    expect(requests.map((request) => request.turn)).toEqual([0, 1]);
  });

  it("answers a delayed turn when the client waits long enough", async () => {
    const { url } = await serve([{ fault: "delay", ms: 50, then: { content: "slow but fine" } }]);
    const result = await clientFor(url).complete({ messages: user });
    expect(result.message.content).toBe("slow but fine");
    expect(result.retries).toEqual([]);
    expect(result.latencyMs).toBeGreaterThanOrEqual(45);
  });

  it("retries a refused connection", async () => {
    const { url } = await serve([]);
    await server!.close();
    server = undefined;
    const error = await clientFor(url, { maxRetries: 1 })
      .complete({ messages: user })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect((error as ModelTransportError).errorClass).toBe("connection");
    expect((error as ModelTransportError).retries.map((retry) => retry.error)).toEqual(["connection"]);
  });

  it("throws ModelTransportError with the recorded retries when retries run out", async () => {
    const { url, requests } = await serve([
      { fault: "http-503" },
      { fault: "cut-connection" },
      { fault: "invalid-json" },
      { fault: "http-500" },
      { content: "too late" },
    ]);
    const error = await clientFor(url, { maxRetries: 3, backoffMs: 1 })
      .complete({ messages: user })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    const transport = error as ModelTransportError;
    expect(transport.attempts).toBe(4);
    expect(transport.errorClass).toBe("http-5xx");
    expect(transport.retries.map(({ attempt, error, waitedMs }) => ({ attempt, error, waitedMs }))).toEqual([
      { attempt: 1, error: "http-5xx", waitedMs: 1 },
      { attempt: 2, error: "connection", waitedMs: 2 },
      { attempt: 3, error: "invalid-json", waitedMs: 4 },
    ]);
    expect(transport.message).toMatch(/after 4 attempt\(s\) \(http-5xx\)/);
    expect(requests).toHaveLength(4);
  });

  it("does not retry a 400: a bad body is a ModelRequestError", async () => {
    const { url, requests } = await serve([{ content: "never sent" }]);
    const error = await clientFor(url)
      .complete({ messages: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as ModelRequestError).status).toBe(400);
    expect((error as ModelRequestError).message).toMatch(/invalid chat-completions request: messages: /);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ status: 400 });
    expect(requests[0]!.turn).toBeUndefined(); // a rejected request consumes no turn
  });

  it("never leaks the API key into results, retries or errors", async () => {
    const sentinel = "sk-SENTINEL-0123456789abcdef";
    process.env.LOCLAB_TEST_API_KEY = sentinel;
    try {
      const { url } = await serve((request, index) => {
        // One fault, one reply, then exhaustion: the key must stay out of every path.
        if (index === 0) return { fault: "http-500" };
        if (index === 1) return { content: `saw ${request.messages.length} message(s)` };
        return undefined;
      });
      const client = clientFor(url, { apiKeyEnv: "LOCLAB_TEST_API_KEY", maxRetries: 1 });
      const ok = await client.complete({ messages: user });
      expect(ok.retries).toHaveLength(1);
      expect(JSON.stringify(ok)).not.toContain(sentinel);
      expect(JSON.stringify(client)).not.toContain(sentinel);

      const exhausted = await client.complete({ messages: user }).catch((e: unknown) => e);
      const rejected = await client.complete({ messages: [] }).catch((e: unknown) => e);
      for (const error of [exhausted, rejected]) {
        expect(error).toBeInstanceOf(Error);
        expect(String(error)).not.toContain(sentinel);
        expect(JSON.stringify(error)).not.toContain(sentinel);
        expect((error as Error).stack ?? "").not.toContain(sentinel);
      }
    } finally {
      delete process.env.LOCLAB_TEST_API_KEY;
    }
  });

  it("reports script exhaustion clearly", async () => {
    const { url } = await serve([{ content: "only turn" }]);
    const client = clientFor(url, { maxRetries: 0 });
    await client.complete({ messages: user });
    const error = await client.complete({ messages: user }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect((error as Error).message).toMatch(/script exhausted: request #2 has no turn left/);
  });

  it("a model output that echoes the key, and credentials in the URL, are redacted from everything returned or thrown", async () => {
    const sentinel = "sk-ECHOED-9876543210";
    process.env.LOCLAB_TEST_API_KEY = sentinel;
    try {
      const { url } = await serve([
        {
          content: `my key is ${sentinel}`,
          toolCalls: [{ name: "view_file", arguments: JSON.stringify({ path: sentinel }) }],
        },
        { fault: "http-400" },
      ]);
      const withCredentials = url.replace("http://", "http://alice:hunter2-secret@");
      const client = clientFor(withCredentials, { apiKeyEnv: "LOCLAB_TEST_API_KEY", maxRetries: 0 });
      expect(client.baseURL).toBe(url);
      const answer = await client.complete({ messages: user });
      expect(answer.message.content).toBe("my key is [redacted]");
      expect(answer.message.toolCalls[0]?.arguments).toBe('{"path":"[redacted]"}');
      const error = await client.complete({ messages: user }).catch((e: unknown) => e);
      expect(String(error)).not.toContain("hunter2-secret");
      expect(String(error)).not.toContain(sentinel);
    } finally {
      delete process.env.LOCLAB_TEST_API_KEY;
    }
  });

  it("429 and 503 are retried after the server's Retry-After, with the retries recorded", async () => {
    const { url, requests } = await serve([
      { fault: "http-429", retryAfter: 1 },
      { fault: "http-503", retryAfter: 0 },
      { content: "ok" },
    ]);
    const client = clientFor(url, { maxRetries: 3 });
    const started = performance.now();
    const answer = await client.complete({ messages: user });
    expect(answer.message.content).toBe("ok");
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(answer.retries.map(({ attempt, error, waitedMs }) => ({ attempt, error, waitedMs }))).toEqual([
      { attempt: 1, error: "rate-limited", waitedMs: 1000 },
      { attempt: 2, error: "http-5xx", waitedMs: 2 },
    ]);
    expect(requests.map((request) => request.status)).toEqual([429, 503, 200]);
  });

  it("retries made before a final 4xx are kept on the error", async () => {
    const { url } = await serve([{ fault: "http-500" }, { fault: "http-400" }]);
    const error = await clientFor(url, { maxRetries: 3 })
      .complete({ messages: user })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelRequestError);
    expect((error as ModelRequestError).retries.map((retry) => retry.error)).toEqual(["http-5xx"]);
  });

  it("a server that trickles its body is cut at the request timeout; the call's deadline ends the retries", async () => {
    const { url } = await serve([
      { fault: "trickle", everyMs: 50 },
      { fault: "trickle", everyMs: 50 },
      { fault: "trickle", everyMs: 50 },
    ]);
    const events: string[] = [];
    const client = clientFor(url, {
      requestTimeoutMs: 300,
      callDeadlineMs: 800,
      maxRetries: 5,
      progressEveryMs: 100,
      onProgress: (event) => events.push(event.kind),
    });
    const started = performance.now();
    const error = await client.complete({ messages: user }).catch((e: unknown) => e);
    const took = performance.now() - started;
    expect(error).toBeInstanceOf(ModelTransportError);
    const transport = error as ModelTransportError;
    expect(transport.retries.every((retry) => retry.error === "timeout")).toBe(true);
    expect(transport.retries.length).toBeGreaterThanOrEqual(1);
    expect(["timeout", "deadline"]).toContain(transport.errorClass);
    expect(took).toBeLessThan(5_000);
    expect(events).toContain("waiting");
    expect(events).toContain("retrying");
  });

  it("jitter stretches a wait by at most a quarter", async () => {
    const { url } = await serve([{ fault: "http-500" }, { content: "ok" }]);
    const answer = await clientFor(url, { backoffMs: 400, maxRetries: 1, jitter: () => 0.999 }).complete({
      messages: user,
    });
    expect(answer.retries[0]?.waitedMs).toBe(Math.round(400 * (1 + 0.25 * 0.999)));
  });
});
