import { getLlama, LlamaLogLevel, type Token } from "node-llama-cpp";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ModelFileError, startModelServer, type ModelServer } from "../src/index.js";

// The real test model (SmolLM2-135M-Instruct Q4_1) through `loclab serve`'s server, checked
// with the official `openai` client against vLLM's documented response shapes.
const modelPath = inject("testModelPath");
let server: ModelServer;
let client: OpenAI;
beforeAll(async () => {
  server = await startModelServer({ modelPath, port: 0, parallel: 2, contextSize: 1024, servedModelName: "smol" });
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
};

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "search_code",
      description: "Find a literal string in the repository.",
      parameters: {
        type: "object",
        properties: { query: { type: "string" }, glob: { type: "string" } },
        required: ["query"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "view_file",
      description: "Show a file.",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, start: { type: "integer" } },
        required: ["path"],
      },
    },
  },
];

describe("loclab serve: the routes a runner probes", () => {
  it("/health is 200, /v1/models lists the served name with max_model_len, /version fingerprints the model", async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const models = await client.models.list();
    expect(models.data).toEqual([
      expect.objectContaining({ id: "smol", object: "model", owned_by: "loclab", max_model_len: 1024 }),
    ]);
    const version = (await (await fetch(`${server.url}/version`)).json()) as Record<string, any>;
    expect(version).toMatchObject({
      server: "loclab-serve",
      model: { name: "smol", sha256: expect.stringMatching(/^[0-9a-f]{64}$/), max_model_len: 1024, vocab_size: 49152 },
    });
    expect(version.engine).toMatch(/node-llama-cpp 3\.21\.1/);
  });

  it("unknown routes, wrong methods, bad JSON, an unknown model and unsupported options get vLLM's error shape", async () => {
    const unknown = await fetch(`${server.url}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: {
        message: expect.stringContaining("no route POST /v1/embeddings"),
        type: "NotFoundError",
        param: null,
        code: 404,
      },
    });
    expect((await fetch(`${server.url}/v1/chat/completions`)).status).toBe(405);
    const badJson = await post("/v1/completions", "{not json");
    expect(badJson).toMatchObject({
      status: 400,
      body: { error: { type: "BadRequestError", code: 400, message: expect.stringContaining("not valid JSON") } },
    });
    const wrongModel = await post("/v1/completions", { model: "gpt-4", prompt: "hi", max_tokens: 1 });
    expect(wrongModel).toMatchObject({
      status: 404,
      body: { error: { message: "The model `gpt-4` does not exist.", type: "NotFoundError", param: "model" } },
    });
    const stream = await post("/v1/chat/completions", {
      model: "smol",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    expect(stream.status).toBe(400);
    expect(stream.body.error.message).toMatch(/^stream: /);
    const noMessages = await post("/v1/chat/completions", { model: "smol", messages: [] });
    expect(noMessages.body.error.message).toMatch(/^messages: /);
  });
});

describe("loclab serve: chat completions", () => {
  it("tools come back as OpenAI tool calls with ids (JSON grammar: this template has no tool syntax)", async () => {
    // Greedy decoding of a model fixed by its sha256: deterministic. (For other wordings this
    // 135M model loops inside a string until max_tokens: a real failure mode, kept visible.)
    const completion = await client.chat.completions.create({
      model: "smol",
      messages: [
        { role: "system", content: "You find code." },
        { role: "user", content: "Find the text 'def parse_date' in the repository." },
      ],
      tools: TOOLS,
      tool_choice: "required",
      temperature: 0,
      max_tokens: 80,
    });
    expect(completion).toMatchObject({
      object: "chat.completion",
      model: "smol",
      id: expect.stringMatching(/^chatcmpl-[0-9a-f]{32}$/),
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls?.[0];
    expect(call).toMatchObject({ type: "function", id: expect.stringMatching(/^chatcmpl-tool-[0-9a-f]{32}$/) });
    if (call?.type !== "function") throw new Error("no function call");
    expect(TOOLS.map((tool) => tool.function.name)).toContain(call.function.name);
    const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
    const tool = TOOLS.find((candidate) => candidate.function.name === call.function.name)!;
    for (const required of tool.function.parameters.required) expect(typeof args[required]).toBe("string");
    // Optional properties are absent or of their type, never null (the grammar's null is dropped).
    expect(Object.values(args).every((value) => value !== null)).toBe(true);
    // usage.prompt_tokens is exactly what /tokenize counts for the same messages and tools.
    const counted = await post("/tokenize", {
      model: "smol",
      messages: [
        { role: "system", content: "You find code." },
        { role: "user", content: "Find the text 'def parse_date' in the repository." },
      ],
      tools: TOOLS,
      tool_choice: "required",
    });
    expect(completion.usage).toMatchObject({
      prompt_tokens: counted.body.count,
      total_tokens: counted.body.count + completion.usage!.completion_tokens,
    });
  });

  it("an earlier tool call and its result go back into the prompt; tool_choice none gives text", async () => {
    const completion = await client.chat.completions.create({
      model: "smol",
      messages: [
        { role: "user", content: "Find parse_date." },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "search_code", arguments: '{"query":"def parse_date"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "src/dates.py:10:def parse_date(text):" },
      ],
      tools: TOOLS,
      tool_choice: "none",
      temperature: 0,
      max_tokens: 12,
    });
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(typeof completion.choices[0]!.message.content).toBe("string");
  });

  it("response_format json_schema decodes the answer by the schema (optional fields left out, not null); with tools it needs tool_choice none", async () => {
    const schema = {
      type: "object",
      properties: {
        name: { const: "search_code" },
        arguments: {
          type: "object",
          properties: { query: { type: "string" }, glob: { type: "string" } },
          required: ["query"],
        },
      },
      required: ["name", "arguments"],
    };
    const completion = await client.chat.completions.create({
      model: "smol",
      messages: [{ role: "user", content: "Find where dates are parsed." }],
      tools: TOOLS,
      tool_choice: "none",
      response_format: { type: "json_schema", json_schema: { name: "tool_call", schema, strict: true } },
      temperature: 0,
      max_tokens: 96,
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.tool_calls ?? []).toEqual([]);
    const answer = JSON.parse(choice.message.content!) as { name: string; arguments: Record<string, unknown> };
    expect(answer.name).toBe("search_code");
    expect(typeof answer.arguments.query).toBe("string");
    expect(Object.values(answer.arguments)).not.toContain(null);
    expect(Object.keys(completion.choices[0]!.message)).toContain("reasoning");
    const refused = await client.chat.completions
      .create({
        model: "smol",
        messages: [{ role: "user", content: "hi" }],
        tools: TOOLS,
        response_format: { type: "json_schema", json_schema: { name: "x", schema } },
        max_tokens: 4,
      })
      .catch((error) => error);
    expect(refused.status).toBe(400);
    expect(refused.message).toContain('needs tool_choice "none"');
  });

  it("max_tokens cuts with finish_reason length; a stop string ends it with stop and is not returned", async () => {
    const cut = await client.chat.completions.create({
      model: "smol",
      messages: [{ role: "user", content: "Count from 1 to 50." }],
      temperature: 0,
      max_tokens: 5,
    });
    expect(cut.choices[0]!.finish_reason).toBe("length");
    expect(cut.usage!.completion_tokens).toBe(5);
    const full = cut.choices[0]!.message.content!;
    const word = full.trim().split(/\s+/)[1] ?? full.trim().slice(1, 2);
    const stopped = await client.chat.completions.create({
      model: "smol",
      messages: [{ role: "user", content: "Count from 1 to 50." }],
      temperature: 0,
      max_tokens: 5,
      stop: [word],
    });
    expect(stopped.choices[0]!.finish_reason).toBe("stop");
    expect(stopped.choices[0]!.message.content).toBe(full.slice(0, full.indexOf(word)));
  });

  it("the same seed and temperature give the same answer; logprobs come in OpenAI's chat shape", async () => {
    const ask = (seed: number) =>
      client.chat.completions.create({
        model: "smol",
        messages: [{ role: "user", content: "Write one sentence about rivers." }],
        temperature: 0.9,
        top_p: 0.95,
        seed,
        max_tokens: 24,
        logprobs: true,
        top_logprobs: 3,
      });
    const [a, b] = [await ask(11), await ask(11)];
    expect(b.choices[0]!.message.content).toBe(a.choices[0]!.message.content);
    expect(b.choices[0]!.logprobs).toEqual(a.choices[0]!.logprobs);
    const others = await Promise.all([ask(12), ask(13)]);
    expect(others.some((other) => other.choices[0]!.message.content !== a.choices[0]!.message.content)).toBe(true);
    const content = a.choices[0]!.logprobs!.content!;
    expect(content).toHaveLength(a.usage!.completion_tokens);
    expect(content.map((entry) => entry.token).join("")).toBe(a.choices[0]!.message.content);
    for (const entry of content) {
      expect(entry.logprob).toBeLessThanOrEqual(0);
      expect(entry.top_logprobs).toHaveLength(3);
      expect(entry.bytes).toEqual([...Buffer.from(entry.token, "utf8")]);
      // top_logprobs are the most likely tokens, in order.
      expect(entry.top_logprobs.map((top) => top.logprob)).toEqual(
        [...entry.top_logprobs.map((top) => top.logprob)].sort((x, y) => y - x),
      );
    }
  });

  it("a prompt longer than the window and a max_tokens past it get vLLM's 400 messages", async () => {
    const long = await post("/v1/chat/completions", {
      model: "smol",
      messages: [{ role: "user", content: "word ".repeat(1100) }],
    });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(
      /^This model's maximum context length is 1024 tokens\. However, your prompt contains at least \d+ input tokens, which exceeds this limit even without any output tokens\. Please reduce the length of the input prompt\.$/,
    );
    expect(long.body.error.param).toBe("input_tokens");
    const tooMany = await post("/v1/completions", { model: "smol", prompt: "Hello there", max_tokens: 2000 });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(
      /^'max_tokens' or 'max_completion_tokens' is too large: 2000\. This model's maximum context length is 1024 tokens and your request has \d+ input tokens \(2000 > 1024 - \d+\)\.$/,
    );
    // The openai client surfaces it as a BadRequestError with the same message.
    await expect(
      client.completions.create({ model: "smol", prompt: "Hello there", max_tokens: 2000 }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining("maximum context length is 1024") });
  });
});

describe("loclab serve: completions with echo and logprobs (what FGL scoring sends)", () => {
  const TEXT =
    "def parse_date(text):\n    # ISO 8601 → datetime, e.g. “2024-01-31”\n    return datetime.strptime(text, '%Y-%m-%d')\n";

  it("echo + logprobs with max_tokens 0: tokens and offsets reconstruct the prompt; numbers equal the engine's own token-by-token evaluation to 1e-6", async () => {
    const response = await client.completions.create({
      model: "smol",
      prompt: TEXT,
      echo: true,
      logprobs: 2,
      max_tokens: 0,
    });
    const choice = response.choices[0]!;
    expect(choice.text).toBe(TEXT);
    expect(choice.finish_reason).toBe("length");
    const logprobs = choice.logprobs!;
    expect(logprobs.tokens!.join("")).toBe(TEXT);
    logprobs.tokens!.forEach((token, index) =>
      expect(TEXT.slice(logprobs.text_offset![index], logprobs.text_offset![index]! + token.length)).toBe(token),
    );
    expect(logprobs.token_logprobs![0]).toBeNull();
    expect(logprobs.top_logprobs![0]).toBeNull();
    expect(response.usage).toMatchObject({ prompt_tokens: logprobs.tokens!.length, completion_tokens: 0 });

    // The reference: node-llama-cpp driven directly, one token per evaluation (a different
    // batch shape from the server's single pass), its full distribution read at each step.
    const tokenized = await post("/tokenize", { model: "smol", prompt: TEXT });
    const tokens: number[] = tokenized.body.tokens;
    const llama = await getLlama({ gpu: false, build: "never", maxThreads: 2, logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ contextSize: 1024, threads: 2 });
    const sequence = context.getSequence();
    const direct: number[] = [];
    for (let index = 0; index < tokens.length - 1; index++) {
      const [result] = await sequence.controlledEvaluate([
        [tokens[index] as Token, { generateNext: { probabilities: true } }],
      ]);
      direct.push(Math.log(result!.next!.probabilities!.get(tokens[index + 1] as Token)!));
    }
    await context.dispose();
    await model.dispose();
    await llama.dispose();
    const served = logprobs.token_logprobs!.slice(1) as number[];
    expect(served).toHaveLength(direct.length);
    const worst = Math.max(...served.map((value, index) => Math.abs(value - direct[index]!)));
    expect(worst).toBeLessThan(1e-6);

    // The same request twice: the same numbers, bit for bit.
    const again = await client.completions.create({
      model: "smol",
      prompt: TEXT,
      echo: true,
      logprobs: 2,
      max_tokens: 0,
    });
    expect(again.choices[0]!.logprobs).toEqual(logprobs);
  });

  it("prompt_logprobs in vLLM's shape agree with echo logprobs; token ids are accepted as the prompt", async () => {
    const tokens: number[] = (await post("/tokenize", { model: "smol", prompt: TEXT })).body.tokens;
    const byIds = await post("/v1/completions", {
      model: "smol",
      prompt: tokens,
      max_tokens: 0,
      prompt_logprobs: 1,
      echo: true,
      logprobs: 0,
    });
    expect(byIds.status).toBe(200);
    const choice = byIds.body.choices[0];
    expect(choice.text).toBe(TEXT);
    const promptLogprobs: Array<Record<string, { logprob: number; rank: number; decoded_token: string }> | null> =
      choice.prompt_logprobs;
    expect(promptLogprobs).toHaveLength(tokens.length);
    expect(promptLogprobs[0]).toBeNull();
    promptLogprobs.slice(1).forEach((entry, index) => {
      const own = entry![String(tokens[index + 1])]!;
      expect(own.logprob).toBe(choice.logprobs.token_logprobs[index + 1]);
      expect(own.rank).toBeGreaterThanOrEqual(1);
      expect(own.decoded_token).toBe(choice.logprobs.tokens[index + 1]);
      // The most likely token is there with rank 1.
      expect(Object.values(entry!).some((alternative) => alternative.rank === 1)).toBe(true);
    });
  });

  it("a generated continuation gets logprobs too, offsets continuing past the prompt", async () => {
    const response = await client.completions.create({
      model: "smol",
      prompt: "The capital of France is",
      max_tokens: 4,
      temperature: 0,
      echo: true,
      logprobs: 1,
    });
    const choice = response.choices[0]!;
    const logprobs = choice.logprobs!;
    expect(logprobs.tokens!.join("")).toBe(choice.text);
    expect(logprobs.tokens).toHaveLength(response.usage!.prompt_tokens + response.usage!.completion_tokens);
    expect(response.usage!.completion_tokens).toBe(4);
    // Greedy: each generated token is the most likely one.
    for (const index of [1, 2, 3, 4].map((k) => logprobs.tokens!.length - k)) {
      expect(Math.max(...Object.values(logprobs.top_logprobs![index]!))).toBe(logprobs.token_logprobs![index]);
    }
  });
});

describe("loclab serve: tokenizer, metrics, queue, model file", () => {
  it("/tokenize and /detokenize round-trip; special-token text is read as the special token", async () => {
    const text = "<|im_start|>user\nhello, world<|im_end|>\n";
    const tokenized = await post("/tokenize", { model: "smol", prompt: text });
    expect(tokenized.body).toMatchObject({ count: tokenized.body.tokens.length, max_model_len: 1024 });
    expect(tokenized.body.tokens[0]).toBe(1);
    expect((await post("/detokenize", { model: "smol", tokens: tokenized.body.tokens })).body).toEqual({
      prompt: text,
    });
    expect((await post("/detokenize", { model: "smol", tokens: [49152] })).body.error.message).toMatch(
      /tokens\[0\]: token id 49152 is out of vocabulary/,
    );
  });

  it("/metrics counts under vLLM's names what the responses reported", async () => {
    const before = await metricValues();
    const one = await client.completions.create({
      model: "smol",
      prompt: "One two three",
      max_tokens: 3,
      temperature: 0,
    });
    const two = await client.chat.completions.create({
      model: "smol",
      messages: [{ role: "user", content: "Hi" }],
      max_tokens: 2,
      temperature: 0,
    });
    const after = await metricValues();
    const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
    expect(delta('vllm:prompt_tokens_total{model_name="smol"}')).toBe(
      one.usage!.prompt_tokens + two.usage!.prompt_tokens,
    );
    expect(delta('vllm:generation_tokens_total{model_name="smol"}')).toBe(3 + 2);
    expect(delta('vllm:request_success_total{model_name="smol",finished_reason="length"}')).toBe(2);
    expect(delta('vllm:e2e_request_latency_seconds_count{model_name="smol"}')).toBe(2);
    expect(after.get('vllm:num_requests_running{model_name="smol"}')).toBe(0);
    expect(after.get('vllm:num_requests_waiting{model_name="smol"}')).toBe(0);
  });

  it("beyond the bounded queue a request gets 503 with Retry-After while the running one completes", async () => {
    const small = await startModelServer({ modelPath, port: 0, parallel: 1, maxWaiting: 1, contextSize: 512 });
    try {
      const request = () =>
        fetch(`${small.baseURL}/completions`, {
          method: "POST",
          body: JSON.stringify({ model: small.modelName, prompt: "Once upon a time", max_tokens: 24, temperature: 0 }),
        });
      const responses = await Promise.all([request(), request(), request()]);
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([200, 200, 503]);
      const refused = responses.find((response) => response.status === 503)!;
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(((await refused.json()) as any).error).toMatchObject({
        type: "ServiceUnavailableError",
        code: 503,
        message: expect.stringContaining("queue is full"),
      });
    } finally {
      await small.close();
    }
  });

  it("a client that goes away while its prompt is evaluated frees the sequence: the request ends as abort with only part of the prompt evaluated", async () => {
    // A prompt of about 900 tokens, unique to this test (no cached prefix): its evaluation takes
    // seconds on CPU. The client aborts once the server reports the request running; the
    // prompt's evaluation must stop at the next 64-token block, so the prefill tokens counted
    // for it (vLLM's vllm:prompt_tokens_total counts prefill tokens processed) fall short of the
    // prompt. Before the fix the whole prompt was evaluated (and the sequence held) regardless.
    const words = Array.from({ length: 220 }, (_, i) => `w${(i * 7919) % 1009}`).join(" ");
    const prompt = `Unique prompt ${Date.now()}: ${words}`;
    const { count } = (await post("/tokenize", { model: "smol", prompt })).body as { count: number };
    expect(count).toBeGreaterThan(512);
    expect(count).toBeLessThan(1024 - 50);
    const before = await metricValues();
    const abort = new AbortController();
    const request = fetch(`${server.baseURL}/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "smol", prompt, max_tokens: 50, temperature: 0 }),
      signal: abort.signal,
    }).catch((error: Error) => error);
    while (((await metricValues()).get('vllm:num_requests_running{model_name="smol"}') ?? 0) < 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort();
    expect(await request).toBeInstanceOf(Error);
    const aborted = 'vllm:request_success_total{model_name="smol",finished_reason="abort"}';
    let after = await metricValues();
    while ((after.get(aborted) ?? 0) === (before.get(aborted) ?? 0)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await metricValues();
    }
    const prefill =
      (after.get('vllm:prompt_tokens_total{model_name="smol"}') ?? 0) -
      (before.get('vllm:prompt_tokens_total{model_name="smol"}') ?? 0);
    expect(prefill).toBeLessThan(count);
    expect(
      (after.get('vllm:generation_tokens_total{model_name="smol"}') ?? 0) -
        (before.get('vllm:generation_tokens_total{model_name="smol"}') ?? 0),
    ).toBe(0);
    expect(after.get('vllm:num_requests_running{model_name="smol"}')).toBe(0);
  });

  it("a missing or non-GGUF model file fails at start with its name", async () => {
    await expect(startModelServer({ modelPath: "/nonexistent/model.gguf", port: 0 })).rejects.toThrow(
      new ModelFileError("/nonexistent/model.gguf", "no such file"),
    );
    await expect(startModelServer({ modelPath: new URL(import.meta.url).pathname, port: 0 })).rejects.toThrow(
      /not a GGUF model/,
    );
  });
});

async function metricValues(): Promise<Map<string, number>> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^(vllm:[^\s]+)\s+(\S+)$/.exec(line);
    if (match) values.set(match[1]!, Number(match[2]));
  }
  return values;
}
