import type { ChatCompletionRequest } from "./chat-completion-request.js";
import type { ScriptedFault, ScriptTurn } from "./script-turn.js";
import { type ScriptedModelServer, startScriptedModelServer } from "./scripted-model-server.js";
import { seededRandom } from "@loclab/statistics";

/** The faults `startPolicyModelServer` can inject, each one failed HTTP attempt. */
export const INJECTABLE_FAULTS: readonly ScriptedFault[] = [
  { fault: "http-500" },
  { fault: "http-503", retryAfter: 0 },
  { fault: "http-429", retryAfter: 0 },
  { fault: "cut-connection" },
  { fault: "invalid-json" },
];

export interface PolicyModelServerOptions {
  /** Served model name (listed by `/v1/models`). Default `toy-policy`. */
  model?: string;
  /** Every answer waits this long first (a model's latency). Default 0. */
  delayMs?: number;
  /** Model calls per instance: tool calls (`repo_tree`) pad the answer out to exactly this many. Default: as few as it needs (2–3). */
  turns?: number;
  /** Share of requests answered with one of `INJECTABLE_FAULTS` instead (drawn with `faultSeed`). Default 0. */
  faultRate?: number;
  faultSeed?: number;
  /** Chance that a search-based answer takes the first hit (a caller, not the definition). Default 0.25. */
  slip?: number;
  port?: number;
}

export interface PolicyModelServer extends ScriptedModelServer {
  /** Faults injected so far, by kind. */
  faults: Map<string, number>;
  /** Requests answered with a model reply. */
  answered(): number;
}

interface Hit {
  path: string;
  line: number;
  text: string;
}

/**
 * A scripted model server whose answers are a fixed localization policy over real tool
 * observations (native tool calls), for runs across many instances at once: it reads the
 * whole conversation of each request (no server-side state), so any number of instances can
 * interleave on it. The policy, for an issue naming a function `f()`:
 *
 * 1. if the issue names the file (a path, or a dotted module), search `def f(` in that file;
 *    otherwise search `f(` in the repository;
 * 2. from the hits: the file-named search takes its first hit; the repository-wide one takes
 *    the definition (`def `), except that with chance `slip` (seeded by the request's `seed`
 *    and the function the issue names) it takes a caller; with no hit (another repository's
 *    snapshot: the mismatch control) it searches `def ` and takes a hit at random;
 * 3. pads with `repo_tree` calls to `turns`, then submits the chosen line (and the next) with
 *    a five-field finding.
 *
 * So masking costs it accuracy (the named file is gone), shuffling does not (it has no
 * memory of names to lose), the mismatch control leaves it at chance, and seeds change which
 * answers slip. Not a model: an honest fake for the harness, served over real HTTP.
 */
export async function startPolicyModelServer(options: PolicyModelServerOptions = {}): Promise<PolicyModelServer> {
  const faults = new Map<string, number>();
  const faultRng = seededRandom(options.faultSeed ?? 1);
  let answered = 0;
  const script = (request: ChatCompletionRequest): ScriptTurn => {
    if ((options.faultRate ?? 0) > 0 && faultRng.nextFloat() < (options.faultRate as number)) {
      const fault = INJECTABLE_FAULTS[faultRng.nextBelow(INJECTABLE_FAULTS.length)] as ScriptedFault;
      faults.set(fault.fault, (faults.get(fault.fault) ?? 0) + 1);
      return fault;
    }
    answered += 1;
    const reply = policyReply(request, options);
    return (options.delayMs ?? 0) > 0 ? { fault: "delay", ms: options.delayMs as number, then: reply } : reply;
  };
  const server = await startScriptedModelServer({
    script,
    models: [options.model ?? "toy-policy"],
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  return Object.assign(server, { faults, answered: () => answered });
}

function textOf(content: unknown): string {
  return typeof content === "string" ? content : "";
}

function hitsOf(observation: string): Hit[] {
  const hits: Hit[] = [];
  for (const line of observation.split("\n")) {
    const match = /^([^\s:][^:]*):(\d+):(.*)$/.exec(line);
    if (match) hits.push({ path: match[1] as string, line: Number(match[2]), text: match[3] as string });
  }
  return hits;
}

function policyReply(request: ChatCompletionRequest, options: PolicyModelServerOptions) {
  const messages = request.messages;
  const user = textOf(messages.find((message) => message.role === "user")?.content);
  const fn = /`(\w+)\(\)`/.exec(user)?.[1] ?? "main";
  const path =
    /`([\w./-]+\.py)`/.exec(user)?.[1] ??
    /the module ([\w.]+?)\.?(?:\s|$)/.exec(user)?.[1]?.replaceAll(".", "/").concat(".py") ??
    undefined;
  const turn = messages.filter((message) => message.role === "assistant").length;
  const toolTexts = messages.filter((message) => message.role === "tool").map((message) => textOf(message.content));
  let seedHash = (typeof request.seed === "number" ? request.seed : 0) >>> 0;
  // Seeded by the function the issue names (the prompt never names the instance): the same in
  // every cell of an instance, since no control rewrites a symbol, so its slips stay paired.
  for (const ch of fn) seedHash = (Math.imul(seedHash, 31) + ch.charCodeAt(0)) >>> 0;
  const rng = seededRandom(seedHash);
  // Tool-call ids from the conversation's own turn, not the server's arrival order: an
  // instance's answers do not depend on what else the server serves at the time.
  const call = (name: string, args: unknown) => ({
    content: null,
    toolCalls: [{ id: `call_${turn}_0`, name, arguments: JSON.stringify(args) }],
  });

  if (toolTexts.length === 0)
    return call("search_code", path ? { query: `def ${fn}(`, glob: path } : { query: `${fn}(` });
  const first = hitsOf(toolTexts[0] as string);
  let chosen: Hit | undefined;
  let searches = 1;
  if (first.length > 0) {
    // A slip takes a caller, whatever order the hits come in (so a shuffled tree slips alike).
    const definition = first.find((hit) => hit.text.includes("def "));
    const caller = first.find((hit) => !hit.text.includes("def "));
    chosen = path
      ? first[0]
      : rng.nextFloat() < (options.slip ?? 0.25)
        ? (caller ?? first[0])
        : (definition ?? first[0]);
  } else {
    if (toolTexts.length === 1) return call("search_code", { query: "def " });
    searches = 2;
    const any = hitsOf(toolTexts[1] as string);
    chosen = any.length > 0 ? any[rng.nextBelow(any.length)] : undefined;
  }
  const padded = Math.max(0, (options.turns ?? 0) - searches - 1);
  if (turn < searches + padded) return call("repo_tree", { depth: 1 });
  const location = chosen
    ? { path: chosen.path, startLine: chosen.line, endLine: chosen.line + 1, role: "edit" }
    : { path: "README.md", startLine: 1, endLine: 1, role: "edit" };
  return call("submit_localization", {
    locations: [location],
    finding: {
      locationExplanation: `${fn} is defined or called here.`,
      rootCause: `${fn} adds its constant where it should subtract it.`,
      solutionIdea: "Subtract the constant.",
      dependencies: "Its callers in cli.py print the result.",
      testingImpact: `Add a test of ${fn}.`,
    },
  });
}
