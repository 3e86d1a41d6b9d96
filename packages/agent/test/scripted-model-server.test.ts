import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedModelServer } from "../src/index.js";

// The server checked with plain fetch, independently of the client under test.
let server: ScriptedModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const request = { model: "m", messages: [{ role: "user", content: "hello there" }] };

describe("scripted model server", () => {
  it("binds to 127.0.0.1 on a free port and answers in the chat-completions shape", async () => {
    server = await startScriptedModelServer({ script: [{ content: "hi" }] });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await post(server.url, request);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      id: "chatcmpl-scripted-0",
      object: "chat.completion",
      created: expect.any(Number),
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: "hi" }, finish_reason: "stop" }],
      usage: { prompt_tokens: expect.any(Number), completion_tokens: 1, total_tokens: expect.any(Number) },
    });
  });

  it("rejects bad bodies with 400 and a message, without consuming a turn", async () => {
    server = await startScriptedModelServer({ script: [{ content: "hi" }] });
    const cases = [
      ["not json", /not valid JSON/],
      [{ messages: request.messages }, /model: /],
      [{ ...request, temperature: 5 }, /temperature: /],
      [{ ...request, stream: true }, /streaming is not supported/],
      [{ ...request, messages: [{ role: "tool", content: "x" }] }, /tool_call_id/],
    ] as const;
    for (const [body, pattern] of cases) {
      const response = await post(server.url, body);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { message: string } };
      expect(error.message).toMatch(pattern);
    }
    expect((await post(server.url, request)).status).toBe(200);
    expect(server.requests.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 200]);
  });

  it("answers from a script function with the request and the turn index", async () => {
    server = await startScriptedModelServer({
      script: (req, index) => (index < 2 ? { content: `${index}:${req.messages.length}` } : undefined),
    });
    const contents = [];
    for (let i = 0; i < 2; i++) {
      const body = (await (await post(server.url, request)).json()) as { choices: { message: { content: string } }[] };
      contents.push(body.choices[0]!.message.content);
    }
    expect(contents).toEqual(["0:1", "1:1"]);
    const exhausted = await post(server.url, request);
    expect(exhausted.status).toBe(500);
    expect(await exhausted.json()).toMatchObject({
      error: { type: "script_exhausted", message: expect.stringMatching(/script exhausted/) },
    });
  });

  it("serves an invalid JSON body and 404s unknown routes", async () => {
    server = await startScriptedModelServer({ script: [{ fault: "invalid-json" }] });
    const broken = await post(server.url, request);
    expect(broken.status).toBe(200);
    await expect(broken.json()).rejects.toThrow(SyntaxError);
    const missing = await fetch(`${server.url}/completions`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
  });
});
