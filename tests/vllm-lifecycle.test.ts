import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  downFleet,
  fleetStatus,
  loadLoraAdapter,
  planFleet,
  probeReadiness,
  processServer,
  readFleetState,
  shellCommand,
  upFleet,
  vllmServeArgs,
  vllmServeEnv,
} from "@loclab/vllm";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// The vLLM lifecycle without GPUs, for real: the process launcher starts an executable named
// `vllm` (tests/vllm-stand-in/vllm) found on PATH, which parses the generated argv on its own
// and serves the API with the real test model; readiness, status, LoRA and stopping go through
// real processes and real HTTP.
const standInDir = fileURLToPath(new URL("./vllm-stand-in/", import.meta.url));
let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "loclab-vllm-"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
const env = (extra: Record<string, string> = {}) => ({
  ...process.env,
  PATH: `${standInDir}${delimiter}${process.env.PATH}`,
  LOCLAB_MODEL: inject("testModelPath"),
  ...extra,
});

describe("vllm serve commands from a typed spec", () => {
  it("a 4×L4 fleet, one server per GPU: four exact commands and the runner's four endpoints", () => {
    const plan = planFleet({
      gpus: 4,
      layout: "per-gpu",
      server: {
        model: "Qwen/Qwen3-8B",
        servedModelName: "qwen3-8b",
        maxModelLen: 32768,
        gpuMemoryUtilization: 0.9,
        toolCallParser: "hermes",
        maxLogprobs: 20,
        seed: 0,
      },
    });
    expect(plan.servers.map((server) => [server.gpus, server.port])).toEqual([
      [[0], 8000],
      [[1], 8001],
      [[2], 8002],
      [[3], 8003],
    ]);
    expect(shellCommand("vllm", vllmServeArgs(plan.servers[2]!), vllmServeEnv(plan.servers[2]!))).toBe(
      "CUDA_VISIBLE_DEVICES=2 vllm serve Qwen/Qwen3-8B --served-model-name qwen3-8b --host 127.0.0.1 --port 8002 --tensor-parallel-size 1 --max-model-len 32768 --gpu-memory-utilization 0.9 --enable-auto-tool-choice --tool-call-parser hermes --generation-config vllm --enable-prefix-caching --max-logprobs 20 --seed 0",
    );
    expect(plan.endpoints).toEqual(
      [0, 1, 2, 3].map((i) => ({ baseURL: `http://127.0.0.1:${8000 + i}/v1`, model: "qwen3-8b", maxConcurrency: 16 })),
    );
  });

  it("one tensor-parallel server over four GPUs, with a localizer and a fixer adapter on one base model", () => {
    const plan = planFleet({
      gpus: 4,
      layout: "tp",
      server: {
        model: "Qwen/Qwen3-30B-A3B",
        lora: {
          adapters: [
            { name: "localizer", path: "/ckpt/loc" },
            { name: "fixer", path: "/ckpt/fix" },
          ],
          maxLoraRank: 32,
        },
      },
    });
    expect(plan.servers).toHaveLength(1);
    expect(vllmServeEnv(plan.servers[0]!)).toEqual({ CUDA_VISIBLE_DEVICES: "0,1,2,3" });
    expect(vllmServeArgs(plan.servers[0]!)).toEqual([
      "serve",
      "Qwen/Qwen3-30B-A3B",
      "--served-model-name",
      "Qwen/Qwen3-30B-A3B",
      "--host",
      "127.0.0.1",
      "--port",
      "8000",
      "--tensor-parallel-size",
      "4",
      "--enable-lora",
      "--lora-modules",
      "localizer=/ckpt/loc",
      "fixer=/ckpt/fix",
      "--max-lora-rank",
      "32",
      "--generation-config",
      "vllm",
      "--enable-prefix-caching",
    ]);
    expect(plan.endpoints).toEqual([
      { baseURL: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen3-30B-A3B", maxConcurrency: 64 },
    ]);
    expect(() =>
      planFleet({ gpus: 2, layout: "per-gpu", server: { model: "m", gpuMemoryUtilization: 1.5 } as never }),
    ).toThrow(/gpuMemoryUtilization/);
  });
});

describe("the Docker launcher without an engine", () => {
  it("a missing engine is one clear error before any work starts", async () => {
    const { dockerLauncher, DockerUnavailableError } = await import("@loclab/vllm");
    const attempt = dockerLauncher({ socketPath: join(work, "no-docker.sock") });
    await expect(attempt).rejects.toBeInstanceOf(DockerUnavailableError);
    await expect(dockerLauncher({ socketPath: join(work, "no-docker.sock") })).rejects.toThrow(
      `no Docker engine answers at unix://${join(work, "no-docker.sock")}: ENOENT (start dockerd, or set DOCKER_HOST)`,
    );
  });
});

describe("the process launcher against a stand-in `vllm`", () => {
  it("up: two servers, one per GPU, ready by all five checks; status re-probes; adapters listed and loaded; down stops them", async () => {
    const stateDir = join(work, "fleet");
    const adapterDir = join(work, "adapters", "localizer");
    mkdirSync(adapterDir, { recursive: true });
    writeFileSync(join(adapterDir, "adapter_config.json"), '{"r": 8}');
    const port = await freePort();
    const plan = planFleet({
      gpus: 2,
      layout: "per-gpu",
      basePort: port,
      server: {
        model: "HuggingFaceTB/SmolLM2-135M-Instruct",
        servedModelName: "smol",
        maxModelLen: 1024,
        lora: { adapters: [{ name: "localizer", path: adapterDir }], runtimeUpdates: true },
        seed: 1,
      },
    });
    const lines: string[] = [];
    const records = [join(work, "argv-0.json"), join(work, "argv-1.json")];
    const state = await upFleet(plan, {
      stateDir,
      pollMs: 200,
      readyTimeoutMs: 120_000,
      onProgress: (line) => lines.push(line),
      launchers: {
        process: {
          launch: async (spec, options) => {
            const { launchProcess } = await import("@loclab/vllm");
            return launchProcess(spec, { ...options, env: env({ STANDIN_RECORD: records[spec.gpus[0]!]! }) });
          },
          attach: (spec, handle, logFile) => processServer(spec, (handle as { pid: number }).pid, logFile),
        },
      },
    });
    try {
      expect(lines.filter((line) => / ready on port/.test(line))).toHaveLength(2);
      // What each stand-in parsed from its argv and saw in its environment.
      const seen = records.map(
        (file) =>
          JSON.parse(readFileSync(file, "utf8")) as {
            model: string;
            values: Record<string, unknown>;
            modules: string[];
            cudaVisibleDevices: string;
            runtimeLora: string;
          },
      );
      expect(seen.map((record) => record.cudaVisibleDevices)).toEqual(["0", "1"]);
      expect(seen[0]).toMatchObject({
        model: "HuggingFaceTB/SmolLM2-135M-Instruct",
        modules: [`localizer=${adapterDir}`],
        runtimeLora: "True",
      });
      expect(seen[0]!.values).toMatchObject({
        "served-model-name": "smol",
        host: "127.0.0.1",
        port: String(port),
        "tensor-parallel-size": "1",
        "enable-lora": true,
        "max-lora-rank": "64",
        "generation-config": "vllm",
        "enable-prefix-caching": true,
        seed: "1",
        "max-model-len": "1024",
      });
      // The state file: PIDs, logs, fingerprints (version from /version, adapter digests).
      const stored = await readFleetState(stateDir);
      expect(stored.servers.map((server) => server.handle.kind)).toEqual(["process", "process"]);
      expect(stored.servers[0]!.fingerprint).toMatchObject({
        vllmVersion: "0.0.0+loclab-stand-in",
        servedModelName: "smol",
        gpus: [0],
        adapters: [{ name: "localizer", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }],
      });
      expect(JSON.parse(readFileSync(join(stateDir, "endpoints.json"), "utf8"))).toEqual(state.endpoints);
      // A real request through an endpoint of the pool, by the adapter's name.
      const client = new OpenAI({ baseURL: state.endpoints[1]!.baseURL, apiKey: "unused", maxRetries: 0 });
      const answer = await client.completions.create({
        model: "localizer",
        prompt: "def add(a, b):",
        max_tokens: 3,
        temperature: 0,
      });
      expect(answer.usage?.completion_tokens).toBe(3);
      // A fixer adapter loaded at run time shows in /v1/models with the base as parent.
      await loadLoraAdapter(state.endpoints[0]!.baseURL, { name: "fixer", path: "/ckpt/fixer" });
      const models = (await (await fetch(`${state.endpoints[0]!.baseURL}/models`)).json()) as {
        data: Array<{ id: string; parent: string | null }>;
      };
      expect(models.data.map((model) => [model.id, model.parent])).toEqual([
        ["smol", null],
        ["localizer", "smol"],
        ["fixer", "smol"],
      ]);
      // /health stays 200 in vLLM's dead-engine state; status finds it by the completion probe.
      process.kill((stored.servers[1]!.handle as { pid: number }).pid, "SIGUSR1");
      const status = await fleetStatus(stateDir);
      expect(status.map((entry) => entry.readiness.ready)).toEqual([true, false]);
      expect(status[1]!.readiness.failed).toMatchObject({
        check: "completion",
        problem: expect.stringContaining("HTTP 500"),
      });
    } finally {
      expect(await downFleet(stateDir, { graceMs: 10_000 })).toBe(2);
    }
    const after = await fleetStatus(stateDir);
    expect(after.map((entry) => entry.readiness.failed?.check)).toEqual(["alive", "alive"]);
  });

  it("a server that refuses its arguments fails `up` with its log; the others are stopped", async () => {
    const stateDir = join(work, "bad-fleet");
    const port = await freePort();
    const plan = planFleet({
      gpus: 1,
      layout: "per-gpu",
      basePort: port,
      server: { model: "m", extraArgs: ["--no-such-flag"] },
    });
    const { launchProcess } = await import("@loclab/vllm");
    await expect(
      upFleet(plan, {
        stateDir,
        pollMs: 100,
        launchers: {
          process: {
            launch: (spec, options) => launchProcess(spec, { ...options, env: env() }),
            attach: (spec, handle, log) => processServer(spec, (handle as { pid: number }).pid, log),
          },
        },
      }),
    ).rejects.toThrow(
      /server 0 \(port \d+\) exited before it was ready; the end of its log:\nvllm: error: Unknown option '--no-such-flag'/,
    );
  });

  it("stop: SIGTERM, then SIGKILL after the grace period for a server that ignores it", async () => {
    const port = await freePort();
    const [spec] = planFleet({
      gpus: 1,
      layout: "per-gpu",
      basePort: port,
      server: { model: "m", maxModelLen: 512 },
    }).servers;
    const { launchProcess } = await import("@loclab/vllm");
    const server = await launchProcess(spec!, {
      logFile: join(work, "stubborn.log"),
      env: env({ STANDIN_IGNORE_SIGTERM: "1" }),
    });
    for (let i = 0; i < 600 && !(await probeReadiness(spec!, { alive: () => server.alive() })).ready; i++)
      await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    await server.stop({ graceMs: 1500 });
    expect(await server.alive()).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
    expect(await server.logTail()).toMatch(/ignoring SIGTERM/);
  });
});
