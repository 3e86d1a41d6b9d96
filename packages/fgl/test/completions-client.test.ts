import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelAnswerError, ModelTransportError } from "@loclab/openai-http";
import { countTokens, echoPrompt } from "../src/index.js";

// FGL's completions client over real HTTP, against a small server that records what it was sent.
const SECRET = "hunter2-secret";
let server: Server;
let port: number;
const seen: { url: string; authorization: string | undefined }[] = [];
let reply: (request: IncomingMessage, response: ServerResponse, body: string) => void;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => (body += chunk));
    request.on("end", () => {
      seen.push({ url: request.url ?? "", authorization: request.headers.authorization });
      reply(request, response, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const endpoint = () => ({ baseURL: `http://alice:${SECRET}@127.0.0.1:${port}/v1`, model: "m" });

/** One retry after a 1 ms wait, so that a failing case takes no seconds. */
const fast = { retry: { maxRetries: 1, backoffMs: 1 } };

describe("echoPrompt with credentials in the endpoint URL", () => {
  it("sends them as HTTP Basic auth, never in the URL, and scores", async () => {
    reply = (_request, response, body) => {
      const { prompt } = JSON.parse(body) as { prompt: string };
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          choices: [
            { text: `${prompt}!`, logprobs: { text_offset: [0, prompt.length], token_logprobs: [null, -0.5] } },
          ],
        }),
      );
    };
    const echoed = await echoPrompt(endpoint(), "def f():");
    expect(echoed.logprobs).toEqual([null, -0.5]);
    const last = seen.at(-1);
    expect(last?.url).toBe("/v1/completions");
    expect(last?.authorization).toBe(`Basic ${Buffer.from(`alice:${SECRET}`).toString("base64")}`);
  });

  it("a server failure that quotes the request is a transport error, retried, without the secret", async () => {
    reply = (request, response) => {
      response.statusCode = 503;
      response.end(`overloaded; you sent ${request.headers.authorization} as alice:${SECRET}`);
    };
    const before = seen.length;
    const error = await echoPrompt(endpoint(), "def f():", fast).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect((error as ModelTransportError).errorClass).toBe("http-5xx");
    expect((error as ModelTransportError).retries.map((retry) => retry.error)).toEqual(["http-5xx"]);
    expect(seen.length - before).toBe(2);
    expect(String((error as Error).message)).toContain("503");
    for (const retry of (error as ModelTransportError).retries) expect(retry.message).not.toContain(SECRET);
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(String((error as Error).message)).not.toContain(Buffer.from(`alice:${SECRET}`).toString("base64"));
  });

  it("a body cut after the headers is a transport error (connection, retried), not a crash", async () => {
    reply = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      response.write('{"choices":');
      setTimeout(() => response.destroy(), 20);
    };
    const error = await echoPrompt(endpoint(), "def f():", fast).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelTransportError);
    expect((error as ModelTransportError).errorClass).toBe("connection");
    expect((error as ModelTransportError).attempts).toBe(2);
    expect(String((error as Error).message)).not.toContain(SECRET);
  });

  it("an answer without logprobs is an unusable answer, asked once; /tokenize goes to the server root", async () => {
    reply = (request, response, body) => {
      response.setHeader("content-type", "application/json");
      if (request.url === "/tokenize") response.end(JSON.stringify({ count: JSON.parse(body).prompt.length }));
      else response.end(JSON.stringify({ choices: [{ text: JSON.parse(body).prompt, logprobs: null }] }));
    };
    const before = seen.length;
    const error = await echoPrompt(endpoint(), "def f():", fast).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelAnswerError);
    expect((error as ModelAnswerError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/has no logprobs \(the server does not support echo \+ logprobs\)/);
    expect(seen.length - before).toBe(1);
    expect(await countTokens(endpoint(), "abcdef", fast)).toBe(6);
    expect(seen.at(-1)).toEqual({
      url: "/tokenize",
      authorization: `Basic ${Buffer.from(`alice:${SECRET}`).toString("base64")}`,
    });
  });
});
