import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { coreCount, fleetPlanOptions, planFleet, readFleetFile, vllmServeArgs, vllmServeEnv } from "@loclab/vllm";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { loclabBin, scratch } from "./helpers.js";

// Fleet files and CPU fleets, without starting anything: the plan's servers and what
// `loclab vllm plan --json` prints (tests/vllm-real.test.ts starts a real one).
const plan = (...args: string[]) =>
  execa(process.execPath, [loclabBin, "vllm", "plan", "--json", ...args], { reject: false });

describe("a fleet file's fields stand unless a flag is given", () => {
  it("gpus, layout and basePort from the file; a flag overrides only its own field; defaults fill the rest", async () => {
    const dir = scratch("loclab-fleet-");
    const file = join(dir, "fleet.json");
    writeFileSync(file, JSON.stringify({ gpus: 1, layout: "per-gpu", basePort: 9100, server: { model: "m" } }));
    const fromFile = await plan("--spec", file);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    const servers = JSON.parse(fromFile.stdout).servers as Array<{
      spec: { port: number; gpus: number[] };
      argv: string[];
    }>;
    expect(servers.map((server) => [server.spec.port, server.spec.gpus])).toEqual([[9100, [0]]]);
    const overridden = JSON.parse((await plan("--spec", file, "--gpus", "2")).stdout).servers as Array<{
      spec: { port: number };
    }>;
    expect(overridden.map((server) => server.spec.port)).toEqual([9100, 9101]);
    expect(fleetPlanOptions({}, {})).toMatchObject({ device: "gpu", gpus: 4, layout: "per-gpu", basePort: 8000 });
    expect(fleetPlanOptions({ basePort: 9000, server: { model: "a" } }, { server: { model: "b" } })).toMatchObject({
      basePort: 9000,
      server: { model: "b" },
    });
  });

  it("argv[0] is the launcher's executable; an unknown field is an error naming the file and the field", async () => {
    const dir = scratch("loclab-fleet-");
    const file = join(dir, "fleet.json");
    writeFileSync(
      file,
      JSON.stringify({ gpus: 1, server: { model: "m", launcher: { kind: "process", executable: "/opt/v/bin/vllm" } } }),
    );
    const planned = JSON.parse((await plan("--spec", file)).stdout).servers as Array<{ argv: string[] }>;
    expect(planned[0]!.argv.slice(0, 3)).toEqual(["/opt/v/bin/vllm", "serve", "m"]);
    writeFileSync(file, JSON.stringify({ gpu: 1, server: { model: "m" } }));
    await expect(readFleetFile(file)).rejects.toThrow(`${file}: (file): Unrecognized key: "gpu"`);
    const refused = await plan("--spec", file);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('Unrecognized key: "gpu"');
  });
});

describe("a CPU fleet: cores instead of GPUs", () => {
  it("servers bound to their own cores, with their KV cache, no CUDA_VISIBLE_DEVICES", () => {
    const fleet = planFleet({
      device: "cpu",
      cpus: 4,
      servers: 2,
      kvCacheGiB: 3,
      basePort: 8100,
      server: { model: "m" },
    });
    expect(fleet.servers.map((server) => [server.port, server.device, server.cpu?.threads])).toEqual([
      [8100, "cpu", "0-1"],
      [8101, "cpu", "2-3"],
    ]);
    expect(vllmServeEnv(fleet.servers[1]!)).toEqual({
      VLLM_CPU_OMP_THREADS_BIND: "2-3",
      OMP_NUM_THREADS: "2",
      VLLM_CPU_KVCACHE_SPACE: "3",
    });
    expect(fleet.endpoints.map((endpoint) => endpoint.maxConcurrency)).toEqual([2, 2]);
    const one = planFleet({ device: "cpu", cpus: 1, server: { model: "m", dtype: "bfloat16", enforceEager: true } });
    expect(one.servers[0]!.cpu?.threads).toBe("0");
    expect(vllmServeArgs(one.servers[0]!)).toEqual(expect.arrayContaining(["--dtype", "bfloat16", "--enforce-eager"]));
    expect(coreCount("0-1,4,6-7")).toBe(5);
  });

  it("refuses what a CPU fleet cannot be: no cores given, fewer cores than servers, GPUs", () => {
    expect(() => planFleet({ device: "cpu", server: { model: "m" } })).toThrow(/needs cpus/);
    expect(() => planFleet({ device: "cpu", cpus: 1, servers: 2, server: { model: "m" } })).toThrow(
      /at least one per server/,
    );
    expect(() => planFleet({ device: "cpu", cpus: 2, gpus: 1, server: { model: "m" } })).toThrow(/takes no GPUs/);
  });

  it("loclab vllm plan --device cpu: the real argv and environment", async () => {
    const planned = await plan("--device", "cpu", "--cpus", "2", "--model", "m", "--executable", "/x/vllm");
    expect(planned.exitCode, planned.stderr).toBe(0);
    const [server] = JSON.parse(planned.stdout).servers as Array<{ argv: string[]; env: Record<string, string> }>;
    expect(server!.argv[0]).toBe("/x/vllm");
    expect(server!.env).toEqual({
      VLLM_CPU_OMP_THREADS_BIND: "0-1",
      OMP_NUM_THREADS: "2",
      VLLM_CPU_KVCACHE_SPACE: "2",
    });
  });
});
