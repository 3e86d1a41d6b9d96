import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { echoPrompt, InfrastructureError } from "../src/index.js";

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

  it("a server failure that quotes the request is an InfrastructureError without the secret", async () => {
    reply = (request, response) => {
      response.statusCode = 503;
      response.end(`overloaded; you sent ${request.headers.authorization} as alice:${SECRET}`);
    };
    const error = await echoPrompt(endpoint(), "def f():").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect(String((error as Error).message)).toContain("HTTP 503");
    expect(String((error as Error).message)).not.toContain(SECRET);
    expect(String((error as Error).message)).not.toContain(Buffer.from(`alice:${SECRET}`).toString("base64"));
  });

  it("a body cut after the headers is an InfrastructureError (retried), not a crash", async () => {
    reply = (_request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      response.write('{"choices":');
      setTimeout(() => response.destroy(), 20);
    };
    const error = await echoPrompt(endpoint(), "def f():").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InfrastructureError);
    expect(String((error as Error).message)).not.toContain(SECRET);
  });
});
