import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createModelClient, judgeFinding } from "@loclab/agent";
import { countTokens, echoPrompt } from "@loclab/fgl";
import { ModelRequestError } from "@loclab/openai-http";
import { serverWindow } from "@loclab/runner";
import { defaultModelCacheDir, ensureTestModel, TEST_MODEL } from "@loclab/serve";
import { ensureVllmModel, readConvertedModel, readFleetState, vllmCpu } from "@loclab/vllm";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loclabBin } from "./helpers.js";

// The real vLLM (its CPU build, pinned, installed by `npm test` as `loclab setup vllm` does) on
// the test model converted from the same GGUF: one server for the whole file, started and
// stopped through `loclab vllm up|status|down` with a fleet file, with a LoRA adapter made here.
// What the model does is its own; what is checked is what loclab sends, reads and records.
const here = fileURLToPath(new URL(".", import.meta.url));
const PORT = 8190 + (process.pid % 50);
const WINDOW = 2048;
let work: string;
let modelDir: string;
let python: string;
let up: { exitCode: number | undefined; stdout: string; stderr: string; seconds: number };
const base = `http://127.0.0.1:${PORT}`;
const endpoint = { baseURL: `${base}/v1`, model: "smol" };
const loclab = (args: string[], cwd = work) => execa(process.execPath, [loclabBin, ...args], { cwd, reject: false });

beforeAll(async () => {
  const install = vllmCpu();
  python = install.python;
  work = await mkdtemp(join(tmpdir(), "loclab-vllm-real-"));
  const gguf = await ensureTestModel();
  modelDir = (
    await ensureVllmModel({
      gguf: { path: gguf.path, sha256: gguf.sha256 },
      python,
      cacheDir: defaultModelCacheDir(),
    })
  ).dir;
  await execa(python, [join(here, "vllm-real", "make_lora.py"), modelDir, join(work, "lora-tiny")]);
  const fleet = {
    device: "cpu",
    cpus: 2,
    servers: 1,
    kvCacheGiB: 1,
    basePort: PORT,
    server: {
      model: modelDir,
      servedModelName: "smol",
      maxModelLen: WINDOW,
      dtype: "bfloat16",
      // No torch.compile: ready in about a minute instead of three, at some cost in speed.
      enforceEager: true,
      structuredOutputs: { backend: "xgrammar", disableAnyWhitespace: true },
      seed: 0,
      toolCallParser: "hermes",
      lora: { adapters: [{ name: "tiny", path: join(work, "lora-tiny") }], maxLoraRank: 8 },
      env: { HF_HUB_OFFLINE: "1" },
      launcher: { kind: "process", executable: install.vllm },
    },
  };
  writeFileSync(join(work, "fleet.json"), JSON.stringify(fleet));
  const started = performance.now();
  const result = await loclab(["vllm", "up", "--spec", "fleet.json", "--state", "fleet"]);
  up = {
    exitCode: result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
    seconds: (performance.now() - started) / 1000,
  };
  if (result.exitCode !== 0) throw new Error(`loclab vllm up failed:\n${result.stderr.slice(-4000)}`);
});

afterAll(async () => {
  if (!work) return;
  const down = await loclab(["vllm", "down", "--state", "fleet", "--grace", "20"]);
  expect(down.exitCode, down.stderr).toBe(0);
  await rm(work, { recursive: true, force: true });
});

describe("loclab setup vllm and loclab vllm up|status on the real CPU build", () => {
  it("the test model's folder is made from the test model's GGUF and records every file's sha256", () => {
    const record = readConvertedModel(modelDir);
    expect(record?.source.sha256).toBe(TEST_MODEL.sha256);
    const files = Object.entries(record?.files ?? {});
    expect(files.map(([name]) => name)).toEqual(expect.arrayContaining(["config.json", "model.safetensors"]));
    for (const [name, digest] of files)
      expect(
        createHash("sha256")
          .update(readFileSync(join(modelDir, name)))
          .digest("hex"),
        name,
      ).toBe(digest);
  });

  it("up returns once the fleet is ready, with the endpoints; status re-probes; the state holds the fingerprint", async () => {
    expect(up.exitCode).toBe(0);
    expect(JSON.parse(up.stdout)).toEqual([{ baseURL: endpoint.baseURL, model: "smol", maxConcurrency: 2 }]);
    expect(up.stderr).toContain("server 0: ready");
    process.stdout.write(`vllm up: ready and returned after ${up.seconds.toFixed(1)} s\n`);
    const status = await loclab(["vllm", "status", "--state", "fleet"]);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain(`port ${PORT}: ready`);
    const state = await readFleetState(join(work, "fleet"));
    const fingerprint = state.servers[0]!.fingerprint!;
    expect(fingerprint.vllmVersion).toBe("0.32.0");
    expect(fingerprint.device).toBe("cpu");
    expect(fingerprint.cpu).toEqual({ threads: "0-1", kvCacheGiB: 1 });
    expect(fingerprint.args).toEqual(expect.arrayContaining(["--enforce-eager", "--dtype", "bfloat16"]));
    expect(fingerprint.adapters.map((adapter) => adapter.name)).toEqual(["tiny"]);
  });
});

describe("what loclab reads from vLLM's answers", () => {
  it("/v1/models: the window the runner's context logic uses, and the adapter", async () => {
    const models = await (await fetch(`${endpoint.baseURL}/models`)).json();
    expect(serverWindow(models, "smol")).toBe(WINDOW);
    expect((models as { data: Array<{ id: string }> }).data.map((model) => model.id).sort()).toEqual(["smol", "tiny"]);
  });

  it("FGL's echo pass gives exactly vLLM's prompt_logprobs on every token; /tokenize counts what the completion counts", async () => {
    const prompt = readFileSync(join(here, "..", "packages", "fgl", "src", "render-context.ts"), "utf8").slice(0, 2000);
    const echoed = await echoPrompt(endpoint, prompt);
    const answer = (await (
      await fetch(`${endpoint.baseURL}/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "smol", prompt, max_tokens: 1, temperature: 0, prompt_logprobs: 0 }),
      })
    ).json()) as {
      choices: Array<{ prompt_logprobs: Array<Record<string, { logprob: number }> | null> }>;
      usage: { prompt_tokens: number };
    };
    // vLLM 0.32 puts prompt_logprobs on the choice; position 0 (the first token) has none.
    const positions = answer.choices[0]!.prompt_logprobs;
    expect(positions[0]).toBeNull();
    const reference = positions.slice(1).map((entry) => Object.values(entry!)[0]!.logprob);
    const echoedPrompt = echoed.logprobs.slice(1, positions.length);
    expect(echoedPrompt).toHaveLength(reference.length);
    expect(reference.length).toBeGreaterThan(300);
    expect(echoedPrompt).toEqual(reference);
    // ctx(z) is fitted by the server's /tokenize count; vLLM adds no BOS for this model.
    expect(await countTokens(endpoint, prompt)).toBe(answer.usage.prompt_tokens);
    expect(echoed.promptTokens).toBe(answer.usage.prompt_tokens);
  });

  it("seeds: the same seed gives the same text, another seed another text", async () => {
    const ask = async (seed: number) =>
      (
        await createModelClient({ ...endpoint, seed, temperature: 1, maxOutputTokens: 48 }).complete({
          messages: [{ role: "user", content: "Write a short poem about version control." }],
        })
      ).message.content;
    const first = await ask(11);
    expect(await ask(11)).toBe(first);
    expect(await ask(12)).not.toBe(first);
  });

  it("a LoRA adapter is served as its own model name: its log-probabilities differ from the base model's", async () => {
    const logprobs = async (model: string) => {
      const answer = (await (
        await fetch(`${endpoint.baseURL}/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model,
            prompt: "The capital of France is",
            max_tokens: 4,
            temperature: 0,
            logprobs: 0,
          }),
        })
      ).json()) as { choices: Array<{ logprobs: { token_logprobs: number[] } }> };
      return answer.choices[0]!.logprobs.token_logprobs;
    };
    const [plain, tuned] = [await logprobs("smol"), await logprobs("tiny")];
    expect(plain).toHaveLength(4);
    expect(tuned).toHaveLength(4);
    expect(tuned[0]).not.toBeCloseTo(plain[0]!, 3);
    const client = createModelClient({ baseURL: endpoint.baseURL, model: "tiny", maxOutputTokens: 8, temperature: 0 });
    const completion = await client.complete({ messages: [{ role: "user", content: "Say hi." }] });
    expect(completion.usage?.completionTokens).toBeGreaterThan(0);
  });

  it("errors: an unknown model is a request error naming it; a prompt over the window is vLLM's context message", async () => {
    const unknown = createModelClient({ baseURL: endpoint.baseURL, model: "no-such-model", maxRetries: 0 });
    const refused = await unknown.complete({ messages: [{ role: "user", content: "hi" }] }).catch((error) => error);
    expect(refused).toBeInstanceOf(ModelRequestError);
    expect((refused as ModelRequestError).status).toBe(404);
    expect((refused as Error).message).toContain("no-such-model");
    const client = createModelClient({ ...endpoint, maxRetries: 0 });
    const long = await client
      .complete({ messages: [{ role: "user", content: "word ".repeat(WINDOW + 100) }] })
      .catch((error) => error);
    expect(long).toBeInstanceOf(ModelRequestError);
    expect((long as Error).message).toMatch(/maximum context length is 2048 tokens/);
  });

  it("vLLM shortens max_tokens past the window instead of refusing: the client says so (shortened)", async () => {
    const client = createModelClient({ ...endpoint, maxOutputTokens: 300, temperature: 1, seed: 3 });
    // A prompt of about 2,000 tokens (counted by the server's own /tokenize): prompt + 300
    // passes the 2,048-token window.
    const messagesOf = (k: number) => [{ role: "user" as const, content: `${"lorem ipsum ".repeat(k)}\nRepeat it.` }];
    const count = async (k: number) =>
      (
        (await (
          await fetch(`${base}/tokenize`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "smol", messages: messagesOf(k) }),
          })
        ).json()) as { count: number }
      ).count;
    const [at100, at200] = [await count(100), await count(200)];
    const k = Math.floor(100 + ((2000 - at100) * 100) / (at200 - at100));
    const completion = await client.complete({ messages: messagesOf(k) });
    const used = completion.usage!;
    expect(used.promptTokens + 300).toBeGreaterThan(WINDOW);
    expect(completion.finishReason).toBe("length");
    expect(completion.shortened).toEqual({
      requested: 300,
      granted: used.completionTokens,
      promptTokens: used.promptTokens,
    });
    expect(used.promptTokens + used.completionTokens).toBe(WINDOW);
  });
});

/** A trajectory file's header and steps (the log contract), as a test reads them back. */
function readTrajectory(path: string) {
  const [header, ...steps] = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  return {
    header: header as { decoding?: { toolCalls: string }; outcome: { exit: string } },
    steps: steps as Array<{ toolCalls: Array<{ name: string }>; finishReason?: string; error?: string }>,
  };
}

/** The README's first-run spec, pointed at this server (its model name, its port), with `changes` on top. */
function readmeSpec(out: string, changes: { localizer?: Record<string, unknown>; [field: string]: unknown }): string {
  const readme = readFileSync(join(here, "..", "README.md"), "utf8");
  const at = readme.indexOf("`demo-run.json`:");
  const spec = JSON.parse(/```json\n([\s\S]*?)```/.exec(readme.slice(at))![1]!) as Record<string, unknown> & {
    endpoints: Array<{ baseURL: string; model: string }>;
    localizer: Record<string, unknown>;
  };
  const { localizer, ...rest } = changes;
  return JSON.stringify({
    ...spec,
    ...rest,
    endpoints: [{ baseURL: endpoint.baseURL, model: "smol" }],
    localizer: { ...spec.localizer, ...localizer },
    out,
  });
}

describe("the localizer on vLLM: the README's first run, native free and constrained, text constrained", () => {
  /** What a run did: its outcomes, its predictions, and of the answers not cut at the output limit, how many called a tool. */
  const run = async (name: string, changes: Parameters<typeof readmeSpec>[1]) => {
    writeFileSync(join(work, `${name}.json`), readmeSpec(`runs/${name}`, changes));
    const ran = await loclab(["run", `${name}.json`]);
    expect(ran.exitCode, ran.stderr.slice(-3000)).toBe(0);
    const dir = join(work, "runs", name);
    const outcomes = readFileSync(join(dir, "attempts.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { outcome: string }).outcome);
    const files = readdirSync(dir, { recursive: true }) as string[];
    const predictions = files
      .filter((file) => file.endsWith("predictions.jsonl"))
      .flatMap((file) => readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean)).length;
    let answered = 0;
    let answeredWithCall = 0;
    let forcedAnswered = 0;
    let forcedSubmitted = 0;
    const decodings = new Set<string>();
    for (const file of files.filter((name) => name.endsWith(".traj.jsonl"))) {
      const trajectory = readTrajectory(join(dir, file));
      decodings.add(trajectory.header.decoding?.toolCalls ?? "absent");
      for (const step of trajectory.steps) {
        if (step.finishReason === undefined || step.finishReason === "length") continue;
        answered += 1;
        if (step.toolCalls.length === 1) answeredWithCall += 1;
        // The forced final turn offers submit_localization alone: a constrained answer can only be that call.
        if (step.error?.includes("forced_final")) {
          forcedAnswered += 1;
          if (step.toolCalls[0]?.name === "submit_localization") forcedSubmitted += 1;
        }
      }
    }
    expect([...decodings]).toEqual([changes.localizer?.decoding ?? "constrained"]);
    const outcome = { outcomes, predictions, answered, answeredWithCall, forcedAnswered, forcedSubmitted };
    process.stdout.write(`README first run on vLLM, ${name}: ${JSON.stringify(outcome)}\n`);
    return outcome;
  };
  // The README's spec is decoded constrained (256 tokens, 2 locations, 60 s); free is the papers'.
  const free = { decoding: "free" };
  // The plain control alone: each control is the same loop on another tree, and three attempts
  // of each kind cost CI minutes without a new check (the README's three are run on `loclab serve`).
  const plain = { controls: [{ kind: "plain" }] };

  beforeAll(async () => {
    const demo = await loclab(["demo", "--out", "demo", "--instances", "1"]);
    expect(demo.exitCode, demo.stderr).toBe(0);
  });

  it("native, free (the papers' decoding), the README's spec with its plain control: the attempt recorded, not an infrastructure failure", async () => {
    const outcome = await run("native-free", { localizer: free, ...plain });
    expect(outcome.outcomes).toHaveLength(1);
    expect(outcome.outcomes.filter((kind) => kind === "infra_error" || kind === "model_error")).toEqual([]);
  });

  it("native, constrained: every answer is one call of an offered tool; the forced final answers submit", async () => {
    const outcome = await run("native-constrained", plain);
    expect(outcome.outcomes).toHaveLength(1);
    expect(outcome.answered).toBeGreaterThan(0);
    expect(outcome.answeredWithCall).toBe(outcome.answered);
    expect(outcome.forcedSubmitted).toBe(outcome.forcedAnswered);
  });

  it("text, constrained: the answer is the {tool, arguments} object itself, read as the turn's call", async () => {
    const outcome = await run("text-constrained", {
      localizer: { toolMode: "text" },
      ...plain,
    });
    expect(outcome.answered).toBeGreaterThan(0);
    expect(outcome.answeredWithCall).toBe(outcome.answered);
  });
});

describe("the fixer on vLLM, in the task's container", () => {
  it("constrained: every answer is one call of the fixer's tools; the trajectory says how it was decoded", async () => {
    const { connectDocker } = await import("@loclab/docker");
    const { ContainerSandbox, FGL_SINGLE_AGENT, fixerToolDefinitions, fixInstance, removeLeftoverSandboxes } =
      await import("@loclab/fixer");
    const { buildFixerTestImage } = await import("./fixer-image.js");
    const { docker } = await connectDocker({});
    const image = await buildFixerTestImage(docker, "vllm-real");
    const attempt = `vllm-real-${process.pid}`;
    try {
      const sandbox = await ContainerSandbox.start(docker, { image: image.image, attempt });
      const trajectoryPath = join(work, "fixer", "loclab-fixtures__calc-1.traj.jsonl");
      const result = await fixInstance({
        instance: { instance_id: "loclab-fixtures__calc-1", problem_statement: "add(2, 3) returns -1, not 5." },
        sandbox,
        client: createModelClient({ ...endpoint, temperature: 0.7, seed: 1, maxOutputTokens: 256 }),
        trajectoryPath,
        limits: { ...FGL_SINGLE_AGENT, callBudget: 4, wallMs: 300_000, commandTimeoutMs: 30_000 },
        maxTurns: 4,
        toolCalls: "constrained",
      });
      await sandbox.remove();
      const { header, steps } = readTrajectory(trajectoryPath);
      expect(header.decoding).toEqual({ toolCalls: "constrained" });
      const names = new Set<string>(fixerToolDefinitions({ twoAgents: false }).map((tool) => tool.name));
      const answered = steps.filter((step) => step.finishReason !== undefined && step.finishReason !== "length");
      expect(answered.length).toBeGreaterThan(0);
      for (const step of answered) {
        expect(step.toolCalls).toHaveLength(1);
        expect(names.has(step.toolCalls[0]!.name)).toBe(true);
      }
      process.stdout.write(
        `fixer on vLLM (constrained): exit ${result.exit}, calls ${steps.map((step) => step.toolCalls.map((call) => call.name).join("+") || "-").join(", ")}\n`,
      );
    } finally {
      await removeLeftoverSandboxes(docker, attempt).catch(() => undefined);
      await image.remove();
    }
  });
});

describe("the judge on vLLM", () => {
  const prediction = {
    instanceId: "acme__abacus-1",
    files: ["abacus/ops.py"],
    locations: [{ path: "abacus/ops.py", startLine: 1, endLine: 3, role: "edit" as const }],
    finding: {
      locationExplanation: "add() in abacus/ops.py computes the sum.",
      rootCause: "add subtracts its second argument instead of adding it.",
      solutionIdea: "Return a + b.",
      dependencies: "Callers of add in abacus/cli.py.",
      testingImpact: "tests/test_ops.py::test_add starts passing.",
    },
  };
  const instance = { instance_id: "acme__abacus-1", problem_statement: "add(2, 3) returns -1 instead of 5." };

  it("constrained: the answer is the rubric's shape, every score an integer 1-5; free: a typed verdict either way", async () => {
    const client = createModelClient({ ...endpoint, temperature: 0, maxOutputTokens: 320 });
    const constrained = await judgeFinding({ client, instance, prediction, constrained: true });
    expect(constrained.status).toBe("judged");
    if (constrained.status !== "judged") return;
    expect(Object.keys(constrained.scores).sort()).toEqual(["actionability", "location", "rootCause"].sort());
    for (const score of Object.values(constrained.scores)) expect([1, 2, 3, 4, 5]).toContain(score);
    expect(constrained.repaired).toBe(false);
    const free = await judgeFinding({ client, instance, prediction });
    expect(["judged", "invalid_answer"]).toContain(free.status);
    process.stdout.write(`judge on vLLM: constrained ${constrained.status}, free ${free.status}\n`);
  });
});

describe("every `vllm serve` line loclab writes or documents parses with the pinned vLLM's own parser", () => {
  it("the docs' 4×L4 commands and loclab vllm plan's output, every flag loclab can emit", async () => {
    const docs = readFileSync(join(here, "..", "docs", "guide", "running-experiments.md"), "utf8");
    const lines = [...docs.matchAll(/vllm serve (?:[^`\n\\]|\\\n)*/g)].map((match) =>
      match[0]
        .replace(/\\\n/g, " ")
        .replace(/\$i/g, "0")
        .replace(/\s*&\s*$/, "")
        .trim()
        .split(/\s+/),
    );
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const planned: string[][] = [];
    const plans = [
      ["--gpus", "4", "--model", "Qwen/Qwen3-8B", "--served-model-name", "qwen3-8b", "--tool-call-parser", "hermes"],
      ["--gpus", "4", "--layout", "tp", "--model", "Qwen/Qwen3-30B-A3B", "--lora", "localizer=/ckpt/loc"],
      ["--gpus", "1", "--model", "m", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9", "--seed", "7"],
      ["--gpus", "2", "--model", "m", "--runtime-lora", "--max-lora-rank", "16", "--dtype", "bfloat16"],
      ["--device", "cpu", "--cpus", "2", "--servers", "2", "--model", "m", "--enforce-eager"],
    ];
    for (const flags of plans) {
      const plan = await loclab(["vllm", "plan", "--json", ...flags]);
      expect(plan.exitCode, plan.stderr).toBe(0);
      for (const server of JSON.parse(plan.stdout).servers as Array<{ argv: string[] }>) planned.push(server.argv);
    }
    // A spec with every other field loclab turns into a flag.
    const full = {
      gpus: 1,
      server: {
        model: "m",
        revision: "main",
        maxLogprobs: 20,
        enablePrefixCaching: false,
        generationConfig: "auto",
        extraArgs: ["--max-num-seqs", "8"],
        structuredOutputs: { backend: "xgrammar", disableAnyWhitespace: true },
      },
    };
    writeFileSync(join(work, "full.json"), JSON.stringify(full));
    const fullPlan = await loclab(["vllm", "plan", "--json", "--spec", "full.json"]);
    expect(fullPlan.exitCode, fullPlan.stderr).toBe(0);
    planned.push(...(JSON.parse(fullPlan.stdout).servers as Array<{ argv: string[] }>).map((server) => server.argv));
    const all = [...lines, ...planned];
    const checked = await execa(python, [join(here, "vllm-real", "check_serve_args.py")], {
      input: JSON.stringify(all),
      reject: false,
    });
    expect(checked.exitCode, checked.stderr.slice(-2000)).toBe(0);
    const results = JSON.parse(checked.stdout) as Array<{ ok: boolean; error?: string[] }>;
    const refused = results.flatMap((result, i) => (result.ok ? [] : [`${all[i]!.join(" ")}: ${result.error}`]));
    expect(refused).toEqual([]);
    expect(results).toHaveLength(all.length);
    // The check is not vacuous: a wrong flag is refused by the same parser.
    const wrong = await execa(python, [join(here, "vllm-real", "check_serve_args.py")], {
      input: JSON.stringify([["vllm", "serve", "m", "--tensor-paralel-size", "4"]]),
    });
    expect(JSON.parse(wrong.stdout)[0].ok).toBe(false);
  });
});
