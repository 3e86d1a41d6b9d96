// Benchmark: three OpenAI-compatible servers on the test model (SmolLM2-135M-Instruct), on this
// machine, one after another (each started, measured, stopped and its whole process tree gone
// before the next starts):
//   1. vLLM's CPU build (pinned, `loclab setup vllm`), started with loclab's own
//      `loclab vllm up --spec FLEET.json --state DIR` on the test model's converted folder
//      (bfloat16, 2 cores, 2 GiB KV cache, window 4096), twice: torch.compile on (vLLM's
//      default) and `enforceEager: true`; stopped with `loclab vllm down`.
//   2. `loclab serve --test-model` (node-llama-cpp on the GGUF), stopped with SIGINT.
//   3. llama.cpp's `llama-server` (LLAMA_SERVER=path; the row is skipped when unset) on the
//      same GGUF: `-t 2 -c 4096 -np 1`.
// Per server, all through /v1/chat/completions, temperature 0:
//   startup: from the process's start (for vLLM, `loclab vllm up`'s) to the first successful
//     1-token chat completion (polled every 250 ms);
//   prompt tokens/s: one ≈ 2,000-token prompt of real code, max_tokens 1, prompt_tokens / wall
//     seconds, a different prefix each time (no prefix-cache hit);
//   generation tokens/s: a short prompt, max_tokens 256, ignore_eos (all three accept it),
//     completion_tokens / (wall − wall of a 1-token request on the same prompt);
//   next agent turn: a localizer turn as loclab's text tool protocol builds it (the shipped
//     system-text prompt with loclab's tool schemas, the issue, 4 earlier calls and their results
//     made of real code from packages/agent/src; ≈ 3,000 tokens), max_tokens 128 with
//     ignore_eos (the same output length everywhere): the wall time of the first request (cold)
//     and of the second identical one (what prefix caching gives an agent's next turn);
//   memory: PSS (smaps_rollup; VmRSS when that is unreadable) summed over the server's whole
//     process tree (vLLM has an engine core and a worker), sampled after the measurements.
// Medians of REPEAT (3; 1 with --quick, which also shortens the prompts and the outputs), after
// one untimed warm-up. Nothing is asserted. Prints a Markdown table and writes every raw figure
// and the versions to results/bench-three-servers.json.
//
//   npm run build && LLAMA_SERVER=/path/to/llama-server node benchmarks/three-servers.mjs
//     [--quick] [--repeat N] [--port P] [--only vllm,vllm-eager,serve,llama] [--keep]
// --port: the first of four ports (one per server; default 8260); each must be free.
// --keep: keep the scratch folder (fleet files, server logs); it is kept anyway after a failure.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { fillTemplate, readPromptTemplate, submitLocalizationTool, TEXT_PROTOCOL } from "@loclab/agent";
import { defaultModelCacheDir, ensureTestModel } from "@loclab/serve";
import { toolDefinitions } from "@loclab/tools";
import { ensureVllmModel, readFleetState, VLLM_CPU, vllmCpu } from "@loclab/vllm";
import { machine, median, round, scratch } from "./lib/measure.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const loclabBin = join(root, "packages", "cli", "dist", "bin.js");
const outFile = join(root, "results", "bench-three-servers.json");

const flag = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
};
const QUICK = process.argv.includes("--quick");
const KEEP = process.argv.includes("--keep");
const REPEAT = Number(flag("--repeat") ?? (QUICK ? 1 : 3));
const BASE_PORT = Number(flag("--port") ?? 8260);
const ONLY = (flag("--only") ?? "vllm,vllm-eager,serve,llama").split(",");
const SIZES = QUICK
  ? { promptChars: 1800, generate: 32, turnResultChars: 300, turnMaxTokens: 16 }
  : // ≈ 3.3 characters a token for this code (with the chat template); the turn: the system
    // prompt ≈ 1,750 tokens, the rest ≈ 1,300.
    { promptChars: 6700, generate: 256, turnResultChars: 550, turnMaxTokens: 128 };
const STARTUP_TIMEOUT_MS = 15 * 60_000;
const REQUEST_TIMEOUT_MS = 10 * 60_000;
const LLAMA_SERVER = process.env.LLAMA_SERVER || undefined;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const work = scratch("three-servers");
const say = (line) => process.stderr.write(`three-servers: ${line}\n`);

// ---------------------------------------------------------------- the texts sent

const agentSrc = join(root, "packages", "agent", "src");
const sourceFiles = readdirSync(agentSrc)
  .filter((name) => name.endsWith(".ts"))
  .sort();
const allCode = sourceFiles.map((name) => readFileSync(join(agentSrc, name), "utf8")).join("\n");

/**
 * ≈ promptChars of real code (about 2,000 tokens) as a chat, unique from its first token on: a
 * system message of its own, so that no chat template's default system message is shared.
 */
function longPrompt(tag) {
  return [
    { role: "system", content: `Request ${tag}. You are a careful code reviewer.` },
    {
      role: "user",
      content: `Summarize what this TypeScript code does, file by file.\n\n${allCode.slice(0, SIZES.promptChars)}`,
    },
  ];
}
const GENERATION_PROMPT = "Write a long story about a lighthouse keeper who learns to repair clocks.";

/** Lines of a file shown as loclab's view_file shows them (header, tab-numbered lines), up to `chars`. */
function viewFile(name, start, chars) {
  const lines = readFileSync(join(agentSrc, name), "utf8").split("\n");
  const shown = [];
  let used = 0;
  for (let i = start - 1; i < lines.length && used < chars; i++) {
    shown.push(lines[i]);
    used += lines[i].length + 1;
  }
  const end = start + shown.length - 1;
  const width = String(end).length;
  return `packages/agent/src/${name}: lines ${start}-${end} of ${lines.length} lines\n${shown
    .map((text, i) => `${String(start + i).padStart(width)}\t${text}`)
    .join("\n")}`;
}
/** search_code's answer: `path:line: text` for each hit, up to `chars`. */
function searchCode(query, chars) {
  const hits = [];
  let used = 0;
  for (const name of sourceFiles) {
    const lines = readFileSync(join(agentSrc, name), "utf8").split("\n");
    for (const [i, text] of lines.entries()) {
      if (!text.includes(query) || used >= chars) continue;
      const hit = `packages/agent/src/${name}:${i + 1}: ${text.trim()}`;
      hits.push(hit);
      used += hit.length + 1;
    }
  }
  return `${hits.length} hits for "${query}"\n${hits.join("\n")}`;
}

const tools = [
  ...toolDefinitions().map(({ function: tool }) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  })),
  submitLocalizationTool(8),
];
const SYSTEM = fillTemplate(await readPromptTemplate("system-text"), {
  tools: TEXT_PROTOCOL.describeTools(tools),
  maxTurns: "20",
  maxLocations: "8",
  extraBudgets: "",
});
const USER_TEMPLATE = await readPromptTemplate("user");
const ISSUE =
  "When the model answers with a tool call whose JSON cannot be parsed (for example a trailing comma " +
  "inside the ```json block), localizeInstance counts the turn but the next request repeats the nudge " +
  "twice, and after three such answers the run ends as `loop` instead of going on with the nudge. " +
  "Expected: a malformed call is nudged once per answer, and only identical repeated calls count as a loop.";
const EXCHANGES = [
  [
    "Let me find where text tool calls are parsed.",
    "search_code",
    { query: "parseTextToolCall" },
    () => searchCode("parseTextToolCall", SIZES.turnResultChars),
  ],
  [
    "The parser is in text-tool-call.ts; let me read it.",
    "view_file",
    { path: "packages/agent/src/text-tool-call.ts", start: 1 },
    () => viewFile("text-tool-call.ts", 1, SIZES.turnResultChars),
  ],
  [
    "Now the protocol that builds the nudge.",
    "view_file",
    { path: "packages/agent/src/tool-protocol.ts", start: 60 },
    () => viewFile("tool-protocol.ts", 60, SIZES.turnResultChars),
  ],
  [
    "Where does a turn count repetitions?",
    "view_file",
    { path: "packages/agent/src/repetition.ts", start: 1 },
    () => viewFile("repetition.ts", 1, SIZES.turnResultChars),
  ],
];
/** The 5th turn's request: system, issue, 4 calls and their results (loclab's text protocol), unique from `tag` on. */
function turnMessages(tag) {
  const messages = [
    { role: "system", content: `Session ${tag}.\n\n${SYSTEM}` },
    { role: "user", content: fillTemplate(USER_TEMPLATE, { taskLabel: `task-${tag}`, problemStatement: ISSUE }) },
  ];
  for (const [thought, name, args, result] of EXCHANGES) {
    messages.push({
      role: "assistant",
      content: `${thought}\n\n\`\`\`json\n${JSON.stringify({ tool: name, arguments: args })}\n\`\`\``,
    });
    messages.push(TEXT_PROTOCOL.observationMessage({ id: "x", name, arguments: JSON.stringify(args) }, result()));
  }
  return messages;
}

// ---------------------------------------------------------------- processes

/** Every process's parent, from /proc. */
function parents() {
  const map = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z") map.set(Number(entry), Number(fields[1]));
    } catch {
      // gone meanwhile
    }
  }
  return map;
}
/** The pid and all its descendants that are alive (zombies left out). */
function processTree(pid) {
  const map = parents();
  if (!map.has(pid)) return [];
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of map) if (parent === tree[i]) tree.push(child);
  return tree;
}
const alive = (pid) => parents().has(pid);
/** A process's start time (clock ticks since boot): with the pid, it names one process even after the pid is reused. */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
/** Remembers processes by pid and start time; `alive()` lists those still running (not a reused pid). */
function processSet() {
  const known = new Map();
  return {
    add(pids) {
      for (const pid of pids) if (!known.has(pid)) known.set(pid, startTime(pid));
    },
    alive: () =>
      [...known].filter(([pid, started]) => started !== undefined && startTime(pid) === started).map(([pid]) => pid),
  };
}
const signal = (pid, name) => {
  try {
    process.kill(pid, name);
  } catch {
    // gone
  }
};
/** Waits until none of `pids` is alive; false after `ms`. */
async function gone(pids, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const map = parents();
    if (!pids.some((pid) => map.has(pid))) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}
/** SIGKILL to each process group of `pids` and to each pid; then waits for all of them. */
async function killAll(pids) {
  for (const pid of pids) {
    signal(-pid, "SIGKILL");
    signal(pid, "SIGKILL");
  }
  return gone(pids, 10_000);
}

/** PSS (or RSS) summed over the process tree of `pid`, per process too. */
function treeMemory(pid) {
  const processes = [];
  for (const member of processTree(pid)) {
    const read = (file) => {
      try {
        return readFileSync(`/proc/${member}/${file}`, "utf8");
      } catch {
        return "";
      }
    };
    const kib = (text, key) => {
      const match = text.match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"));
      return match ? Number(match[1]) : null;
    };
    const status = read("status");
    processes.push({
      pid: member,
      name: (status.match(/^Name:\s+(.*)$/m) ?? [])[1] ?? "?",
      pssKiB: kib(read("smaps_rollup"), "Pss"),
      rssKiB: kib(status, "VmRSS"),
    });
  }
  const sum = (key) => processes.reduce((total, entry) => total + (entry[key] ?? 0), 0);
  const pssReadable = processes.length > 0 && processes.every((entry) => entry.pssKiB !== null);
  return {
    measure: pssReadable ? "PSS" : "RSS",
    MiB: round((pssReadable ? sum("pssKiB") : sum("rssKiB")) / 1024, 1),
    pssMiB: pssReadable ? round(sum("pssKiB") / 1024, 1) : null,
    rssMiB: round(sum("rssKiB") / 1024, 1),
    processes,
  };
}

/** Nothing listens on 127.0.0.1:port. */
function portFree(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(true));
  });
}

/** A child with stdout and stderr into `log`; `detached` makes it its own process group's leader. */
function start(file, args, { log, detached = false, env = process.env }) {
  const fd = openSync(log, "a");
  try {
    const child = spawn(file, args, { cwd: work, env, stdio: ["ignore", fd, fd], detached });
    const exited = new Promise((resolve) => {
      child.once("exit", (code, sig) => resolve({ code, signal: sig }));
      // A file that cannot be run: no "exit" follows.
      child.once("error", (error) => {
        if (child.pid === undefined)
          resolve({ code: null, signal: null, error: `cannot run ${file}: ${error.message}` });
      });
    });
    return { child, exited };
  } finally {
    closeSync(fd);
  }
}
const logTail = (log, lines = 30) => {
  try {
    return readFileSync(log, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
};

// ---------------------------------------------------------------- HTTP

async function chat(server, body) {
  const started = performance.now();
  const response = await fetch(`${server.baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: server.model, temperature: 0, ...body }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch((error) => {
    throw new Error(`${server.baseURL}/chat/completions: ${error.cause?.message ?? error.message}`);
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${server.baseURL}/chat/completions: ${response.status} ${text.slice(0, 500)}`);
  const answer = JSON.parse(text);
  return {
    seconds: ms / 1000,
    promptTokens: answer.usage?.prompt_tokens ?? null,
    completionTokens: answer.usage?.completion_tokens ?? null,
    cachedTokens: answer.usage?.prompt_tokens_details?.cached_tokens ?? answer.timings?.cache_n ?? null,
    finishReason: answer.choices?.[0]?.finish_reason ?? null,
    ...(answer.timings ? { serverTimings: answer.timings } : {}),
  };
}

/**
 * Polls the server (GET /v1/models for the name, then a 1-token chat completion) every 250 ms
 * from `t0` until one succeeds; `check` (called each round) throws when the server has died.
 * Returns the seconds from t0, the served name, how many polls it took.
 */
async function waitFirstCompletion(baseURL, t0, check) {
  let polls = 0;
  let lastError = "";
  while (performance.now() - t0 < STARTUP_TIMEOUT_MS) {
    await check();
    polls++;
    try {
      const models = await fetch(`${baseURL}/models`, { signal: AbortSignal.timeout(30_000) });
      if (models.ok) {
        const model = (await models.json()).data?.[0]?.id;
        const response = await fetch(`${baseURL}/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model, messages: [{ role: "user", content: "Hi" }], max_tokens: 1, temperature: 0 }),
          signal: AbortSignal.timeout(120_000),
        });
        await response.text();
        if (response.ok) return { seconds: (performance.now() - t0) / 1000, model, polls };
        lastError = `chat ${response.status}`;
      } else lastError = `models ${models.status}`;
    } catch (error) {
      lastError = error.cause?.code ?? error.message;
    }
    await sleep(250);
  }
  throw new Error(`no successful completion from ${baseURL} after ${STARTUP_TIMEOUT_MS / 1000} s (last: ${lastError})`);
}

// ---------------------------------------------------------------- the servers

/**
 * Each launcher starts its server and returns at once `{ baseURL, ready(), rootPid(), stop() }`:
 * `ready()` waits for the first completion; `stop()` works whatever state the server is in
 * (also before it is ready) and returns when its whole process tree is gone.
 */
function vllmLauncher(eager) {
  return async (port, paths) => {
    const dir = join(work, eager ? "vllm-eager" : "vllm");
    mkdirSync(dir, { recursive: true });
    const fleet = {
      device: "cpu",
      cpus: 2,
      servers: 1,
      kvCacheGiB: 2,
      basePort: port,
      server: {
        model: paths.vllmModelDir,
        servedModelName: "smol",
        maxModelLen: 4096,
        dtype: "bfloat16",
        seed: 0,
        ...(eager ? { enforceEager: true } : {}),
        env: { HF_HUB_OFFLINE: "1" },
        launcher: { kind: "process", executable: paths.vllm },
      },
    };
    const spec = join(dir, "fleet.json");
    const state = join(dir, "state");
    writeFileSync(spec, `${JSON.stringify(fleet, null, 2)}\n`);
    const compileCache = join(process.env.VLLM_CACHE_ROOT ?? join(homedir(), ".cache", "vllm"), "torch_compile_cache");
    const extra = { torchCompileCacheExisted: existsSync(compileCache) };
    const log = join(dir, "up.log");
    const t0 = performance.now();
    const up = start(process.execPath, [loclabBin, "vllm", "up", "--spec", spec, "--state", state], { log });
    // `up` launches `vllm serve` detached (its own process group) and exits once it is ready;
    // until then the server is up's child: remember every process seen under it, to stop them
    // even if `up` dies or is killed before it writes the fleet state.
    const seen = processSet();
    let upResult;
    up.exited.then((result) => {
      upResult = result;
      extra.upSeconds = round((performance.now() - t0) / 1000, 2);
    });
    const watch = setInterval(() => {
      if (up.child.pid) seen.add(processTree(up.child.pid).filter((pid) => pid !== up.child.pid));
    }, 200);
    let serverPid;
    const statePid = async () => {
      try {
        return (await readFleetState(state)).servers[0]?.handle.pid;
      } catch {
        return undefined;
      }
    };
    return {
      baseURL: `http://127.0.0.1:${port}/v1`,
      extra,
      logs: [log, join(state, "server-0.log")],
      async ready() {
        const first = await waitFirstCompletion(`http://127.0.0.1:${port}/v1`, t0, async () => {
          if (upResult && upResult.code !== 0)
            throw new Error(`loclab vllm up exited with ${upResult.code ?? upResult.signal}:\n${logTail(log)}`);
        });
        await up.exited;
        clearInterval(watch);
        if (upResult.code !== 0) throw new Error(`loclab vllm up exited with ${upResult.code}:\n${logTail(log)}`);
        const fleetState = await readFleetState(state);
        serverPid = fleetState.servers[0].handle.pid;
        extra.fingerprint = fleetState.servers[0].fingerprint;
        return first;
      },
      rootPid: () => serverPid,
      async stop() {
        clearInterval(watch);
        if (upResult === undefined) {
          up.child.kill("SIGTERM");
          await Promise.race([up.exited, sleep(15_000)]);
          if (upResult === undefined) up.child.kill("SIGKILL");
          await up.exited;
        }
        serverPid ??= await statePid();
        if (serverPid) seen.add(processTree(serverPid));
        const tracked = seen.alive();
        if (existsSync(join(state, "fleet.json"))) {
          const down = start(process.execPath, [loclabBin, "vllm", "down", "--state", state, "--grace", "30"], {
            log: join(dir, "down.log"),
          });
          const result = await down.exited;
          if (result.code !== 0)
            say(`loclab vllm down exited with ${result.code ?? result.signal}: ${logTail(join(dir, "down.log"), 5)}`);
        } else for (const pid of tracked) signal(-pid, "SIGTERM");
        if (!(await gone(tracked, 30_000))) {
          say(`vLLM processes still alive after down: ${tracked.filter(alive).join(" ")}; SIGKILL`);
          await killAll(tracked);
        }
        return tracked;
      },
    };
  };
}

/** A server that is one process tree we start ourselves (its own group), stopped by `stopSignal`. */
function childLauncher({ file, args, stopSignal, logName }) {
  return async (port) => {
    const log = join(work, logName);
    const t0 = performance.now();
    const { child, exited } = start(file, args(port), { log, detached: true });
    let result;
    exited.then((value) => {
      result = value;
    });
    const seen = processSet();
    return {
      baseURL: `http://127.0.0.1:${port}/v1`,
      extra: {},
      logs: [log],
      ready: () =>
        waitFirstCompletion(`http://127.0.0.1:${port}/v1`, t0, async () => {
          if (result) throw new Error(`${file} exited with ${result.code ?? result.signal}:\n${logTail(log)}`);
          if (child.pid) seen.add(processTree(child.pid));
        }),
      rootPid: () => child.pid,
      async stop() {
        if (child.pid) seen.add(processTree(child.pid));
        const tracked = seen.alive();
        if (!result && child.pid) {
          signal(child.pid, stopSignal);
          await Promise.race([exited, sleep(20_000)]);
          if (!result) say(`${file} did not stop on ${stopSignal} within 20 s; SIGKILL to its process group`);
        }
        if (!(await gone(tracked, 5_000)) || !result) await killAll(tracked);
        await exited;
        return tracked;
      },
    };
  };
}

// ---------------------------------------------------------------- one server's measurements

async function measure(server, key) {
  const raw = { warmup: {}, prompt: [], generation: [], turn: [] };
  // Warm-up, untimed: a long prompt and a short generation (a first request may compile or allocate).
  raw.warmup.prompt = await chat(server, {
    messages: longPrompt(`${key} warm-up`),
    max_tokens: 1,
  });
  raw.warmup.generation = await chat(server, {
    messages: [{ role: "user", content: GENERATION_PROMPT }],
    max_tokens: 16,
    ignore_eos: true,
  });
  for (let i = 0; i < REPEAT; i++) {
    const answer = await chat(server, {
      messages: longPrompt(`${key} ${i}`),
      max_tokens: 1,
    });
    raw.prompt.push({ ...answer, tokensPerSecond: answer.promptTokens / answer.seconds });
  }
  for (let i = 0; i < REPEAT; i++) {
    const messages = [{ role: "user", content: GENERATION_PROMPT }];
    const one = await chat(server, { messages, max_tokens: 1, ignore_eos: true });
    const many = await chat(server, { messages, max_tokens: SIZES.generate, ignore_eos: true });
    raw.generation.push({
      oneTokenSeconds: one.seconds,
      ...many,
      tokensPerSecond: many.completionTokens / (many.seconds - one.seconds),
    });
  }
  for (let i = 0; i < REPEAT; i++) {
    const body = {
      messages: turnMessages(`${key}-${process.pid}-${i}`),
      max_tokens: SIZES.turnMaxTokens,
      ignore_eos: true,
    };
    const first = await chat(server, body);
    const next = await chat(server, body);
    raw.turn.push({ first, next });
  }
  return {
    promptTokens: median(raw.prompt.map((entry) => entry.promptTokens)),
    promptTokensPerSecond: median(raw.prompt.map((entry) => entry.tokensPerSecond)),
    generatedTokens: median(raw.generation.map((entry) => entry.completionTokens)),
    generationTokensPerSecond: median(raw.generation.map((entry) => entry.tokensPerSecond)),
    turnPromptTokens: median(raw.turn.map((entry) => entry.first.promptTokens)),
    turnCompletionTokens: median(raw.turn.map((entry) => entry.first.completionTokens)),
    firstTurnSeconds: median(raw.turn.map((entry) => entry.first.seconds)),
    nextTurnSeconds: median(raw.turn.map((entry) => entry.next.seconds)),
    raw,
  };
}

// ---------------------------------------------------------------- versions, paths

const gguf = await ensureTestModel({ onProgress: say });
const nodeLlamaCpp = JSON.parse(
  readFileSync(join(root, "node_modules", "node-llama-cpp", "package.json"), "utf8"),
).version;
const nodeLlamaCppRelease = (() => {
  try {
    return JSON.parse(
      readFileSync(join(root, "node_modules", "node-llama-cpp", "llama", "binariesGithubRelease.json"), "utf8"),
    ).release;
  } catch {
    return null;
  }
})();
const versions = {
  node: process.version,
  loclabServe: JSON.parse(readFileSync(join(root, "packages", "serve", "package.json"), "utf8")).version,
  nodeLlamaCpp,
  nodeLlamaCppLlamaCppRelease: nodeLlamaCppRelease,
  vllm: VLLM_CPU.version,
  llamaServer: null,
};
const paths = { gguf: gguf.path, ggufSha256: gguf.sha256 };
const skipped = {};
try {
  const install = vllmCpu();
  paths.vllm = install.vllm;
  paths.vllmModelDir = (
    await ensureVllmModel({
      gguf: { path: gguf.path, sha256: gguf.sha256 },
      python: install.python,
      cacheDir: defaultModelCacheDir(),
      onProgress: say,
    })
  ).dir;
} catch (error) {
  skipped.vllm = skipped["vllm-eager"] = error.message;
}
if (LLAMA_SERVER) {
  const probe = spawnSync(LLAMA_SERVER, ["--version"], { encoding: "utf8" });
  if (probe.error) skipped.llama = `LLAMA_SERVER=${LLAMA_SERVER}: ${probe.error.message}`;
  else versions.llamaServer = `${probe.stdout}${probe.stderr}`.trim();
} else skipped.llama = "LLAMA_SERVER is not set (the path of llama.cpp's llama-server binary)";

const SERVERS = [
  { key: "vllm", label: `vLLM ${VLLM_CPU.version} CPU (torch.compile)`, launch: vllmLauncher(false) },
  { key: "vllm-eager", label: `vLLM ${VLLM_CPU.version} CPU (enforceEager)`, launch: vllmLauncher(true) },
  {
    key: "serve",
    label: `loclab serve (node-llama-cpp ${nodeLlamaCpp})`,
    launch: childLauncher({
      file: process.execPath,
      args: (port) => [loclabBin, "serve", "--test-model", "--port", String(port)],
      stopSignal: "SIGINT",
      logName: "serve.log",
    }),
  },
  {
    key: "llama",
    label: `llama-server (${(versions.llamaServer ?? "").match(/commit (\w+)/)?.[1] ?? "llama.cpp"})`,
    launch: childLauncher({
      file: LLAMA_SERVER ?? "llama-server",
      args: (port) => [
        "-m",
        gguf.path,
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "-t",
        "2",
        "-c",
        "4096",
        "-np",
        "1",
      ],
      stopSignal: "SIGTERM",
      logName: "llama-server.log",
    }),
  },
];

// ---------------------------------------------------------------- the run

let current; // the server running now, for the interrupt handler
let interrupted = false;
for (const name of ["SIGINT", "SIGTERM"])
  process.once(name, async () => {
    interrupted = true;
    say(`${name}: stopping the server that runs (${current ? "one" : "none"}); no results are written`);
    if (current) await current.stop().catch(() => {});
    process.exit(130);
  });

const startedAt = machine();
const rows = [];
let failed = false;
for (const [index, entry] of SERVERS.entries()) {
  if (interrupted) break;
  const row = { key: entry.key, server: entry.label };
  rows.push(row);
  if (!ONLY.includes(entry.key)) {
    row.skipped = "not in --only";
    continue;
  }
  if (skipped[entry.key]) {
    row.skipped = skipped[entry.key];
    say(`${entry.label}: skipped: ${row.skipped}`);
    continue;
  }
  const port = BASE_PORT + index;
  if (!(await portFree(port))) {
    row.error = `port ${port} is in use: something else listens there (pick others with --port)`;
    say(`${entry.label}: ${row.error}`);
    failed = true;
    continue;
  }
  say(`${entry.label}: starting on port ${port}`);
  const wall = performance.now();
  let server;
  try {
    server = await entry.launch(port, paths);
    const stop = server.stop;
    let stopping;
    server.stop = () => (stopping ??= stop()); // once, whoever asks first (the loop or the interrupt handler)
    current = server;
    const first = await server.ready();
    row.startupSeconds = first.seconds;
    row.startupPolls = first.polls;
    say(`${entry.label}: first completion after ${first.seconds.toFixed(1)} s; measuring`);
    Object.assign(row, await measure({ baseURL: server.baseURL, model: first.model }, entry.key));
    row.memory = treeMemory(server.rootPid());
  } catch (error) {
    row.error = error.message;
    failed = true;
    say(`${entry.label}: FAILED: ${error.message}`);
  } finally {
    if (server) {
      const stopStarted = performance.now();
      const tracked = await server.stop();
      row.stopSeconds = round((performance.now() - stopStarted) / 1000, 2);
      row.processesStopped = tracked;
      row.treeGone = !tracked.some(alive);
      row.logs = server.logs.map((log) => relative(work, log));
      Object.assign(row, server.extra);
      if (!row.treeGone) failed = true;
    }
    current = undefined;
    row.wallSeconds = round((performance.now() - wall) / 1000, 1);
    say(
      `${entry.label}: stopped (${row.treeGone ? "process tree gone" : "PROCESSES LEFT"}), ${row.wallSeconds} s in all`,
    );
  }
}

// ---------------------------------------------------------------- the report

if (interrupted) await new Promise(() => {}); // the interrupt handler exits once the server is stopped

const f = (value, digits = 1) => (value === undefined || value === null ? "–" : value.toFixed(digits));
const table = [
  "| server | startup s | prompt tok/s | generation tok/s | first turn s | next turn s | memory MiB |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ...rows.map((row) =>
    row.skipped || (row.error && row.startupSeconds === undefined)
      ? `| ${row.server} | ${row.skipped ? `skipped: ${row.skipped}` : `failed: ${row.error.split("\n")[0]}`} | | | | | |`
      : `| ${row.server} | ${f(row.startupSeconds)} | ${f(row.promptTokensPerSecond, 0)} | ${f(row.generationTokensPerSecond)} | ${f(row.firstTurnSeconds, 2)} | ${f(row.nextTurnSeconds, 2)} | ${row.memory ? `${f(row.memory.MiB, 0)} (${row.memory.measure})` : "–"} |`,
  ),
].join("\n");
const measured = rows.find((row) => row.promptTokens !== undefined);
const notes = [
  `SmolLM2-135M-Instruct (vLLM: the GGUF's weights dequantized, bfloat16; the others: the Q4_1 GGUF), 2 cores, window 4096, temperature 0; medians of ${REPEAT}${QUICK ? " (--quick: short prompts and outputs)" : ""}.`,
  measured
    ? `Prompt: ${measured.promptTokens} prompt tokens, max_tokens 1. Generation: ${SIZES.generate} tokens with ignore_eos, minus a 1-token request. Turn: ${measured.turnPromptTokens} prompt tokens (loclab's text tool protocol, 4 earlier calls), ${SIZES.turnMaxTokens} output tokens (ignore_eos); next = the identical request again (prefix cache).`
    : undefined,
  rows.some((row) => row.key === "vllm" && row.startupSeconds !== undefined)
    ? `vLLM (torch.compile) started ${rows.find((row) => row.key === "vllm").torchCompileCacheExisted ? "with" : "without"} vLLM's compile cache from an earlier run (~/.cache/vllm/torch_compile_cache); a first start compiles, and takes longer.`
    : undefined,
  rows.some((row) => row.key.startsWith("vllm") && row.memory)
    ? "vLLM's memory includes the 2 GiB KV cache it allocates at start (kvCacheGiB 2); llama-server's and loclab serve's, a 4,096-token cache."
    : undefined,
  ...rows
    .filter((row) => row.error && row.startupSeconds !== undefined)
    .map((row) => `${row.server}: failed during the measurements: ${row.error.split("\n")[0]}`),
  ...rows.filter((row) => row.treeGone === false).map((row) => `${row.server}: processes were left after stopping.`),
].filter(Boolean);
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify(
    {
      benchmark: "three-servers",
      measuredAt: new Date().toISOString(),
      machine: startedAt,
      loadAverageAtEnd: machine().loadAverage,
      quick: QUICK,
      repeat: REPEAT,
      sizes: SIZES,
      versions,
      paths,
      scratch: work,
      rows,
    },
    null,
    2,
  )}\n`,
);
process.stdout.write(`${table}\n\n${notes.map((note) => `- ${note}`).join("\n")}\n\nwrote ${outFile}\n`);
if (!failed && !KEEP) rmSync(work, { recursive: true, force: true });
else process.stdout.write(`server logs and fleet files kept in ${work}\n`);
process.exitCode = failed ? 1 : 0;
