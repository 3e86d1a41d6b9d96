// The fixer's per-step overhead in its container (issue 36): a tool call through the sandbox
// (one `docker exec` over dockerode: bash running GNU timeout with its process-group file)
// against one bare exec of `true` over dockerode (`execInContainer`) and the obvious
// alternative (`docker exec <id> true` from the command line), interleaved in one run;
// read_file of a 150-line file through the toolbox; and whole fixer steps against the scripted
// model server (every step: a model call over HTTP, one read_file, the trajectory line), whose
// model time is near zero, so the step time is the harness's own. The sandbox limits' cost
// (issue 52): the same command's exec without the sweep that follows every command now (the
// step as it was), the sweep alone, and a 50 MB output read with the cap (execInContainer,
// 64 KiB kept) against the whole-output collection it replaced. Needs a Docker engine
// (DOCKER_HOST) and root (the evaluation's base image); skips without an engine.
//
//   DOCKER_HOST=unix:///path/docker.sock node benchmarks/fixer-exec.mjs [--rounds N] [--json FILE]
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelClient, startScriptedModelServer } from "@loclab/agent";
import { connectDocker, dockerSocketPath, execInContainer } from "@loclab/docker";
import { buildTestbedImage } from "@loclab/evaluation";
import { ContainerSandbox, FGL_SINGLE_AGENT, FixerToolbox, fixInstance, RUN_SCRIPT, SWEEP_SCRIPT } from "@loclab/fixer";
import { commitFiles } from "@loclab/fixtures";
import { machine, median, round } from "./lib/measure.mjs";

let docker;
try {
  ({ docker } = await connectDocker());
} catch (error) {
  console.log(`fixer-exec: skipped (${error.message})`);
  process.exit(0);
}
const flag = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const rounds = Number(flag("--rounds", "40"));
const started = machine();
const work = mkdtempSync(join(tmpdir(), "loclab-bench-fixer-"));
const module = Array.from({ length: 400 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join("");
await commitFiles(join(work, "testbed"), { "pkg/big.py": module, "README.md": "bench\n" });
const image = (
  await buildTestbedImage(docker, { repository: join(work, "testbed"), name: `loclab-bench/fixer-exec:${process.pid}` })
).name;
const sandbox = await ContainerSandbox.start(docker, { image, attempt: `bench-${process.pid}` });
const cli = ["-H", `unix://${dockerSocketPath(process.env)}`, "exec", sandbox.container.id, "true"];
const tools = new FixerToolbox(sandbox, { ...FGL_SINGLE_AGENT, callBudget: 10_000 });
const FLOOD = "yes loclab-flood | head -c 50000000";
/** The output collection before issue 52: every frame kept, concatenated at the end (what the runner held). */
async function collectWhole(container, cmd) {
  const exec = await container.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out = [];
  const err = [];
  await new Promise((resolve, reject) => {
    container.modem.demuxStream(stream, { write: (chunk) => out.push(chunk) }, { write: (chunk) => err.push(chunk) });
    stream.on("end", resolve);
    stream.on("error", reject);
  });
  return Buffer.concat(out).length + Buffer.concat(err).length;
}
const cases = {
  "sandbox.run('true')": async () => {
    const result = await sandbox.run("true", { timeoutMs: 30_000 });
    if (result.exitCode !== 0) throw new Error(`sandbox.run: exit ${result.exitCode}`);
  },
  "dockerode exec true (execInContainer)": async () => {
    const result = await execInContainer(sandbox.container, ["true"]);
    if (result.exitCode !== 0) throw new Error(`exec: exit ${result.exitCode}`);
  },
  "docker exec CLI true": async () => {
    const result = spawnSync("docker", cli, { encoding: "utf8" });
    if (result.status !== 0) throw new Error(`docker exec: ${result.stderr}`);
  },
  "the run's exec without the sweep (the step before the limits)": async () => {
    const result = await execInContainer(sandbox.container, [
      "bash",
      "-c",
      RUN_SCRIPT,
      "loclab-run",
      "/tmp/bench.pgid",
      "30",
      "true",
    ]);
    if (result.exitCode !== 0) throw new Error(`exec: exit ${result.exitCode}`);
  },
  "the sweep alone": async () => {
    const result = await execInContainer(sandbox.container, [
      "bash",
      "-c",
      SWEEP_SCRIPT,
      "loclab-sweep",
      sandbox.keeperPid,
    ]);
    if (result.exitCode !== 0) throw new Error(`sweep: exit ${result.exitCode}`);
  },
  "50 MB output, 64 KiB kept (execInContainer)": async () => {
    const result = await execInContainer(sandbox.container, ["bash", "-c", FLOOD], { keepBytes: 64 * 1024 });
    if (result.outputBytes !== 50_000_000) throw new Error(`flood: ${result.outputBytes} bytes`);
  },
  "50 MB output, collected whole (before)": async () => {
    const bytes = await collectWhole(sandbox.container, ["bash", "-c", FLOOD]);
    if (bytes !== 50_000_000) throw new Error(`flood: ${bytes} bytes`);
  },
  "read_file 150 lines (toolbox)": async () => {
    const result = await tools.call("read_file", JSON.stringify({ path: "pkg/big.py", start_line: 101 }));
    if (result.error) throw new Error(result.content);
  },
};
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (const run of Object.values(cases)) await run();
for (let round_ = 0; round_ < rounds; round_ += 1)
  for (const [name, run] of Object.entries(cases)) {
    const t0 = performance.now();
    await run();
    times[name].push(performance.now() - t0);
  }
const medians = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, round(median(values), 2)]));

// Whole steps: a scripted model that reads a file every turn, then submits.
const steps = 30;
const script = [
  ...Array.from({ length: steps }, () => ({
    toolCalls: [{ name: "read_file", arguments: JSON.stringify({ path: "pkg/big.py", start_line: 1 }) }],
  })),
  { toolCalls: [{ name: "submit_patch", arguments: "{}" }] },
];
const server = await startScriptedModelServer({ script });
const fix = await fixInstance({
  instance: { instance_id: "bench__fixer-1", problem_statement: "bench" },
  sandbox,
  client: createModelClient({ baseURL: server.url, model: "scripted", maxRetries: 0 }),
  trajectoryPath: join(work, "traj", "bench__fixer-1.traj.jsonl"),
  limits: { ...FGL_SINGLE_AGENT, callBudget: 1_000 },
});
await server.close();
await sandbox.remove();
await docker.getImage(image).remove({ force: true });
rmSync(work, { recursive: true, force: true });
const stepMs = fix.wallMs / (steps + 1);
// At FGL's ~50 generated tokens/s per task, a 200-token turn takes 4 s of model time.
const modelTurnMs = 4_000;
const result = {
  machine: started,
  rounds,
  medianMs: medians,
  ratios: {
    "sandbox.run / execInContainer": round(
      medians["sandbox.run('true')"] / medians["dockerode exec true (execInContainer)"],
      2,
    ),
    "docker exec CLI / execInContainer": round(
      medians["docker exec CLI true"] / medians["dockerode exec true (execInContainer)"],
      2,
    ),
    "sandbox.run / docker exec CLI": round(medians["sandbox.run('true')"] / medians["docker exec CLI true"], 2),
    "sandbox.run (with the sweep) / the run's exec without it": round(
      medians["sandbox.run('true')"] / medians["the run's exec without the sweep (the step before the limits)"],
      2,
    ),
    "50 MB: capped / collected whole": round(
      medians["50 MB output, 64 KiB kept (execInContainer)"] / medians["50 MB output, collected whole (before)"],
      2,
    ),
  },
  step: {
    steps: steps + 1,
    exit: fix.exit,
    meanStepMs: round(stepMs, 1),
    harnessShareAt200TokenTurns: round(stepMs / (stepMs + modelTurnMs), 3),
  },
};
console.log(JSON.stringify(result, null, 2));
const json = flag("--json", undefined);
if (json) writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
