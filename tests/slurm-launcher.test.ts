import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { renderSbatchScript, slurmTasks, VllmServerSpecSchema } from "@loclab/vllm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { loclabWith } from "./helpers.js";

// vLLM servers through Slurm, for real: a single-node cluster of Debian's slurm-wlm (munged,
// slurmctld, slurmd in a folder of this test's own, started and stopped by their PIDs by
// tests/slurm/cluster.sh), the stand-in `vllm` (tests/vllm-stand-in/vllm: vLLM's flags, the
// real test model behind vLLM's API) submitted with sbatch from loclab's command builder, and
// `loclab run SPEC --slurm FILE`: the server joins the run's pool once it passes the readiness
// probes, takes attempts beside the spec's own endpoint, and is cancelled at the end.
const cluster = fileURLToPath(new URL("./slurm/cluster.sh", import.meta.url));
const standIn = fileURLToPath(new URL("./vllm-stand-in/vllm", import.meta.url));
let dir: string;
let toy: ToyBenchmark;
let policy: PolicyModelServer;
let env: NodeJS.ProcessEnv;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "loclab-slurm-"));
  // munged refuses a socket under a folder others cannot enter (mkdtemp makes 0700).
  chmodSync(dir, 0o755);
  const [ctld, slurmd] = [await freePort(), await freePort()];
  env = {
    ...process.env,
    LOCLAB_SLURM_CTLD_PORT: String(ctld),
    LOCLAB_SLURM_SLURMD_PORT: String(slurmd),
    SLURM_CONF: join(dir, "cluster", "slurm.conf"),
    LOCLAB_MODEL: inject("testModelPath"),
    PATH: `${fileURLToPath(new URL("./vllm-stand-in/", import.meta.url))}${delimiter}${process.env.PATH}`,
  };
  execFileSync(cluster, ["start", join(dir, "cluster")], { env, stdio: ["ignore", "inherit", "inherit"] });
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 2 });
  // The spec's own endpoint: slow enough that attempts are left when the Slurm server joins.
  policy = await startPolicyModelServer({ delayMs: 1500, turns: 3 });
});
afterAll(async () => {
  await policy?.close();
  await toy?.dispose();
  if (dir) execFileSync(cluster, ["stop", join(dir, "cluster")], { env, stdio: ["ignore", "inherit", "inherit"] });
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("vLLM servers launched through Slurm", () => {
  it("renders one job, or a job array, from the command builder; GPUs are Slurm's to give", () => {
    const spec = (port: number) =>
      VllmServerSpecSchema.parse({
        model: "Qwen/Qwen3-8B",
        servedModelName: "qwen3-8b",
        host: "0.0.0.0",
        port,
        tensorParallelSize: 4,
      });
    const one = renderSbatchScript([spec(8000)], { partition: "gpu", time: "12:00:00" });
    expect(one).toContain("#SBATCH --gpus=4\n");
    expect(one).toContain("#SBATCH --partition=gpu\n#SBATCH --time=12:00:00\n");
    expect(one).not.toContain("--array");
    expect(one).toMatch(
      /0\) exec vllm serve Qwen\/Qwen3-8B --served-model-name qwen3-8b --host 0\.0\.0\.0 --port 8000 --tensor-parallel-size 4 /,
    );
    const array = renderSbatchScript([spec(8000), spec(8001)]);
    expect(array).toContain("#SBATCH --array=0-1\n");
    expect(array).toContain("1) exec vllm serve Qwen/Qwen3-8B --served-model-name qwen3-8b --host 0.0.0.0 --port 8001");
    expect(() => renderSbatchScript([{ ...spec(8000), gpus: [0, 1, 2, 3] }])).toThrow(
      /servers\[0\]\.gpus: under Slurm the GPUs are Slurm's to allocate/,
    );
  });

  it("loclab run --slurm: the stand-in, submitted with sbatch, joins the run's pool once ready, takes attempts, and is cancelled at the end", async () => {
    const port = await freePort();
    const servers = join(dir, "servers.json");
    writeFileSync(
      servers,
      JSON.stringify({
        servers: [
          {
            model: "loclab-test-model",
            servedModelName: "toy-policy",
            host: "127.0.0.1",
            port,
            maxModelLen: 8192,
            launcher: { kind: "process", executable: standIn },
          },
        ],
        job: { jobName: "loclab-test", gpusPerServer: 0 },
        maxConcurrency: 1,
      }),
    );
    const out = join(dir, "run");
    const spec = join(dir, "spec.json");
    writeFileSync(
      spec,
      JSON.stringify({
        benchmark: toy.benchmark,
        seeds: [1, 2],
        endpoints: [{ baseURL: policy.url, model: "toy-policy", maxConcurrency: 1 }],
        repos: toy.mirrors,
        out,
        localizer: { maxTurns: 2, maxOutputTokens: 48 },
        retry: { backoffSeconds: 0, probeSeconds: 0.5, healthSeconds: 2 },
      }),
    );
    const result = await loclabWith({ env: env as Record<string, string> })(["run", spec, "--slurm", servers]);
    expect(result.exitCode, result.stderr).toBe(0);
    const jobId = /slurm: job (\d+) submitted/.exec(result.stderr)?.[1];
    expect(jobId, result.stderr).toBeDefined();
    expect(result.stderr).toContain(`slurm: server 0 ready at http://127.0.0.1:${port}/v1`);
    expect(result.stderr).toContain(`slurm: scancel ${jobId}`);

    // Every key has its outcome; some of them were run on the server Slurm started.
    const records = readFileSync(join(out, "attempts.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { endpoint: { baseURL: string } | null; outcome: string });
    expect(records.length).toBeGreaterThanOrEqual(8);
    const byEndpoint = new Map<string, number>();
    for (const record of records)
      byEndpoint.set(record.endpoint?.baseURL ?? "none", (byEndpoint.get(record.endpoint?.baseURL ?? "none") ?? 0) + 1);
    console.log(`attempts by endpoint: ${JSON.stringify(Object.fromEntries(byEndpoint))} (Slurm job ${jobId})`);
    expect(byEndpoint.get(`http://127.0.0.1:${port}/v1`) ?? 0, JSON.stringify([...byEndpoint])).toBeGreaterThan(0);
    expect(byEndpoint.get(policy.url) ?? 0).toBeGreaterThan(0);

    // Cancelled: Slurm says so, and nothing answers on the server's port.
    const tasks = await slurmTasks(jobId as string, { env });
    expect(tasks.map((task) => task.state)).toEqual(["CANCELLED"]);
    const answered = await fetch(`http://127.0.0.1:${port}/health`).then(
      () => true,
      () => false,
    );
    expect(answered).toBe(false);
  });
});
