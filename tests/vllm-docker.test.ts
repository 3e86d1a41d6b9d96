import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  containerOptions,
  dockerLauncher,
  downFleet,
  fleetStatus,
  parseVllmServerSpec,
  planFleet,
  readFleetState,
  upFleet,
} from "@loclab/vllm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// The Docker launcher against a real Docker engine (Debian's docker.io, started by `npm test`
// with no bridge and no iptables, its own socket in DOCKER_HOST). No registry is reachable, so
// the image is built here: an empty root file system imported with `docker import`, the host's
// /usr (node and its libraries) and the repository mounted read-only, running the stand-in
// `vllm` (tests/vllm-stand-in/vllm) that serves the real test model.
const repo = resolve(fileURLToPath(new URL("..", import.meta.url)));
const IMAGE = "loclab-test/host-runtime:1";
let launcher: Awaited<ReturnType<typeof dockerLauncher>>;
let work: string;

beforeAll(async () => {
  launcher = await dockerLauncher();
  work = mkdtempSync(join(tmpdir(), "loclab-vllm-docker-"));
  const root = join(work, "rootfs");
  for (const dir of ["usr", "etc", "tmp", "proc", "sys", "dev", "root", repo])
    mkdirSync(join(root, dir), { recursive: true });
  for (const [link, target] of [
    ["bin", "usr/bin"],
    ["lib", "usr/lib"],
    ["lib64", "usr/lib64"],
    ["sbin", "usr/sbin"],
  ] as const)
    symlinkSync(target, join(root, link));
  const tar = spawnSync("tar", ["-C", root, "-c", "."], { maxBuffer: 1 << 26 });
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr}`);
  const source = new PassThrough();
  source.end(tar.stdout);
  const [repository, tag] = IMAGE.split(":");
  const stream = await launcher.docker.importImage(source as never, { repo: repository, tag });
  await new Promise<void>((done, fail) =>
    launcher.docker.modem.followProgress(stream, (error: Error | null) => (error ? fail(error) : done())),
  );
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

const freePort = () =>
  new Promise<number>((done) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });

describe("the Docker launcher on a real engine", () => {
  it("creates the container vLLM needs on a GPU host: device request, --ipc=host, the HF cache volume, the port on 127.0.0.1 only", async () => {
    const spec = parseVllmServerSpec({
      model: "Qwen/Qwen3-8B",
      gpus: [2, 3],
      tensorParallelSize: 2,
      port: 8002,
      secretEnv: ["LOCLAB_TEST_SECRET"],
      launcher: { kind: "docker", image: IMAGE, hfCache: "/data/hf", network: "bridge" },
    });
    const container = await launcher.docker.createContainer(containerOptions(spec, { LOCLAB_TEST_SECRET: "s3cret" }));
    try {
      const info = await container.inspect();
      expect(info.HostConfig.DeviceRequests).toEqual([
        { Driver: "nvidia", Count: 0, DeviceIDs: ["2", "3"], Capabilities: [["gpu"]], Options: null },
      ]);
      expect(info.HostConfig.IpcMode).toBe("host");
      expect(info.HostConfig.NetworkMode).toBe("bridge");
      expect(info.HostConfig.Binds).toEqual(["/data/hf:/root/.cache/huggingface"]);
      expect(info.HostConfig.PortBindings).toEqual({ "8002/tcp": [{ HostIp: "127.0.0.1", HostPort: "8002" }] });
      // Inside, the server listens on the container's interface; the GPUs are renumbered, so no host indices.
      expect(info.Config.Cmd).toEqual([
        "Qwen/Qwen3-8B",
        "--served-model-name",
        "Qwen/Qwen3-8B",
        "--host",
        "0.0.0.0",
        "--port",
        "8002",
        "--tensor-parallel-size",
        "2",
        "--generation-config",
        "vllm",
        "--enable-prefix-caching",
      ]);
      expect(info.Config.Env.some((entry) => entry.startsWith("CUDA_VISIBLE_DEVICES="))).toBe(false);
      expect(info.Config.Env).toContain("LOCLAB_TEST_SECRET=s3cret");
      expect(info.Config.Labels).toMatchObject({ "loclab.vllm.gpus": "2,3", "loclab.vllm.port": "8002" });
    } finally {
      await container.remove({ force: true });
    }
  });

  it("up, ready through the real container, status, down: the container is gone", async () => {
    const stateDir = join(work, "fleet");
    const modelPath = inject("testModelPath");
    const plan = planFleet({
      gpus: 1,
      layout: "per-gpu",
      basePort: await freePort(),
      server: {
        model: "HuggingFaceTB/SmolLM2-135M-Instruct",
        servedModelName: "smol",
        maxModelLen: 1024,
        env: { LOCLAB_MODEL: modelPath },
        launcher: {
          kind: "docker",
          image: IMAGE,
          network: "host",
          binds: ["/usr:/usr:ro", `${repo}:${repo}:ro`, `${dirname(modelPath)}:${dirname(modelPath)}:ro`],
          entrypoint: ["/usr/bin/node", join(repo, "tests", "vllm-stand-in", "vllm")],
        },
      },
    });
    // No GPU here: the plan's device request would fail to start; the inspect test above covers it.
    plan.servers[0]!.gpus = [];
    const state = await upFleet(plan, {
      stateDir,
      pollMs: 250,
      readyTimeoutMs: 120_000,
      launchers: { docker: launcher },
    });
    const handle = state.servers[0]!.handle;
    if (handle.kind !== "docker") throw new Error("expected a container");
    const info = await launcher.docker.getContainer(handle.containerId).inspect();
    expect(info.State.Running).toBe(true);
    expect(info.HostConfig).toMatchObject({ NetworkMode: "host", IpcMode: "host" });
    expect(info.Config.Cmd).toContain("127.0.0.1");
    expect((await readFleetState(stateDir)).servers[0]!.fingerprint).toMatchObject({
      vllmVersion: "0.0.0+loclab-stand-in",
      launcher: { kind: "docker", image: IMAGE },
    });
    const status = await fleetStatus(stateDir, { launchers: { docker: launcher } });
    expect(status[0]!.readiness).toMatchObject({ ready: true, models: ["smol"] });
    expect(await downFleet(stateDir, { graceMs: 5000, launchers: { docker: launcher } })).toBe(1);
    await expect(launcher.docker.getContainer(handle.containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
