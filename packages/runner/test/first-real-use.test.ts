import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type PolicyModelServer,
  type ScriptedModelServer,
  startPolicyModelServer,
  startScriptedModelServer,
} from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import {
  rebuildRequests,
  type RunRecord,
  RunRecordSchema,
  TrajectoryHeaderSchema,
  TrajectoryStepSchema,
  runLayout,
} from "@loclab/schemas";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  contextLimitFor,
  localizationBreakdown,
  parseRunSpec,
  planRun,
  type RunSpecInput,
  type RunEvent,
  RunSpecError,
  serverWindow,
  shuffledCopyFolder,
  startRun,
} from "../src/index.js";

// What a new user found running loclab on real tasks (issue "First real use"), each checked on
// real runs: the toy benchmark (real git mirrors), the policy model server or the scripted
// server over real HTTP, real workspaces and shuffled copies.
let toy: ToyBenchmark;
let policy: PolicyModelServer;
let scripted: ScriptedModelServer | undefined;
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 3 });
  policy = await startPolicyModelServer();
});
afterAll(async () => {
  await policy?.close();
  await toy?.dispose();
});
afterEach(async () => {
  await scripted?.close();
  scripted = undefined;
});

async function specFor(extra: Partial<RunSpecInput> = {}) {
  const out = await mkdtemp(join(tmpdir(), "loclab-first-use-"));
  return parseRunSpec({
    benchmark: toy.benchmark,
    seeds: [1],
    controls: [{ kind: "plain" }, { kind: "masked" }, { kind: "shuffled", seed: 7 }, { kind: "mismatch", seed: 7 }],
    endpoints: [{ baseURL: policy.url, model: "toy-policy", maxConcurrency: 2 }],
    repos: toy.mirrors,
    out: join(out, "run"),
    retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2, requestRetries: 0 },
    ...extra,
  });
}
const ledger = (dir: string): RunRecord[] =>
  readFileSync(runLayout.ledger(dir), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => RunRecordSchema.parse(JSON.parse(line)));
const readSteps = (file: string) => {
  const [head, ...rest] = readFileSync(file, "utf8").split("\n").filter(Boolean);
  return {
    header: TrajectoryHeaderSchema.parse(JSON.parse(head as string)),
    steps: rest.map((line) => TrajectoryStepSchema.parse(JSON.parse(line))),
  };
};

describe("first real use: what the model sees", () => {
  it("no prompt of any cell names the instance; each trajectory rebuilds every request exactly (digests match); each record carries its leak audit", async () => {
    const spec = await specFor();
    await startRun(spec);
    const records = ledger(spec.out);
    expect(records).toHaveLength(6 * 4);
    for (const record of records) {
      expect(record.leaks, record.key).toBeDefined();
      expect(record.leaks?.instanceId, `${record.instanceId} ${record.control.kind}`).toBe(0);
      const { steps } = readSteps(join(spec.out, record.trajectory as string));
      const requests = rebuildRequests(steps);
      expect(requests.length, record.trajectory as string).toBe(steps.length);
      expect(requests.every((request) => request.digestMatches === true)).toBe(true);
      // Step 0 holds the system and user messages in full; later steps only their additions.
      expect(steps[0]?.request?.keep).toBe(0);
      expect(steps[0]?.request?.add.map((message) => message.role)).toEqual(["system", "user"]);
      for (const request of requests) {
        const text = JSON.stringify(request.messages);
        expect(
          text.includes(record.instanceId),
          `${record.trajectory} step ${request.step} names ${record.instanceId}`,
        ).toBe(false);
        expect(text).toMatch(/task `task-[0-9a-f]{8}`/);
      }
      if (record.control.kind === "shuffled") {
        // The names policy: the repository's name and its package (the same word here) are gone.
        expect(record.leaks?.repository, record.instanceId).toBe(0);
        expect(record.leaks?.packages, record.instanceId).toBe(0);
        expect(record.leaks?.goldPaths).toBe(0);
        expect(record.leaks?.goldModules).toBe(0);
        const user = requests[0]?.messages[1]?.content as string;
        expect(user).not.toMatch(/abacus|beacon/i);
      }
      if (record.control.kind === "masked") {
        expect(record.leaks?.goldPaths).toBe(0);
        expect(record.leaks?.goldModules).toBe(0);
        // The default masking level leaves the gold symbol (`parse_total()`): the audit says so.
        expect(record.leaks?.goldSymbols).toBeGreaterThan(0);
      }
    }
    // The plain cell names the gold where the issue does: the audit is not blind.
    const plain = records.filter((record) => record.control.kind === "plain");
    expect(
      plain.reduce((sum, record) => sum + (record.leaks?.goldPaths ?? 0) + (record.leaks?.goldModules ?? 0), 0),
    ).toBeGreaterThan(0);
    // The layout-only policy keeps the lone package name in the issue: counted, not hidden.
    const layoutOnly = await specFor({ controls: [{ kind: "shuffled", seed: 7, textPolicy: "layout-only" }] });
    await startRun(layoutOnly);
    const kept = ledger(layoutOnly.out);
    expect(kept.map((record) => record.control)).toEqual(
      kept.map(() => ({ kind: "shuffled", seed: 7, textPolicy: "layout-only" })),
    );
    expect(readdirSync(join(layoutOnly.out, "trajectories", "seed-1"))).toEqual(["shuffled-7-layout-only"]);
  });

  it("a prompts folder whose user.md still names {{instanceId}} is refused before anything starts, naming the field and the file", async () => {
    const prompts = await mkdtemp(join(tmpdir(), "loclab-prompts-"));
    writeFileSync(join(prompts, "user.md"), "Fix instance {{instanceId}}.\n\n{{problemStatement}}\n");
    const spec = await specFor({ localizer: { promptsDir: prompts } });
    const error = await planRun(spec).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunSpecError);
    expect((error as RunSpecError).where).toBe("$.localizer.promptsDir");
    expect((error as Error).message).toContain("user.md uses {{instanceId}}");
  });

  it("a spec whose repos folder does not exist is an error naming the field, even when the workspace cache holds every tree", async () => {
    const spec = await specFor({ repos: join(toy.mirrors, "no-such-folder") });
    const error = await startRun(spec).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunSpecError);
    expect((error as RunSpecError).where).toBe("$.repos");
    expect((error as Error).message).toContain("no-such-folder does not exist");
  });
});

describe("first real use: budgets", () => {
  it("the wall budget cancels the model call in flight: the attempt ends as time_limit, the server sees its client go, the steps are kept", async () => {
    // The server answers the second call only after 30 s; the attempt's wall budget is 2 s.
    scripted = await startScriptedModelServer({
      models: ["slow"],
      script: [
        { content: "Looking.", toolCalls: [{ name: "repo_tree", arguments: "{}" }] },
        { fault: "delay", ms: 30_000, then: { content: "late" } },
      ],
    });
    const spec = await specFor({
      instances: [toy.rows[0]?.instance_id as string],
      controls: [{ kind: "plain" }],
      endpoints: [{ baseURL: scripted.url, model: "slow" }],
      budgets: { instance: { wallSeconds: 2 } },
    });
    const summary = await startRun(spec);
    expect(summary.done).toBe(1);
    const [record] = ledger(spec.out);
    expect(record).toMatchObject({ outcome: "budget_exhausted", exit: "time_limit" });
    const chats = scripted.requests.filter((request) => request.path.endsWith("/chat/completions"));
    expect(chats).toHaveLength(2);
    expect(chats[1]?.clientClosed).toBe(true);
    const { header, steps } = readSteps(join(spec.out, record?.trajectory as string));
    expect(header.outcome.exit).toBe("time_limit");
    expect(steps).toHaveLength(2);
    expect(steps[0]?.toolCalls.map((call) => call.name)).toEqual(["repo_tree"]);
    expect(steps[1]?.error).toContain("wall budget");
    // The localization breakdown counts it under the wall budget.
    const breakdown = await localizationBreakdown(spec.out);
    expect(breakdown.rows).toEqual([
      expect.objectContaining({ cell: "seed-1/plain", keys: 1, wallBudget: 1, stepLimit: 0, modelError: 0, open: 0 }),
    ]);
  });

  it("the context limit defaults to the server's window less the output budget", async () => {
    expect(serverWindow({ data: [{ id: "m", max_model_len: 2048 }] }, "m")).toBe(2048);
    expect(serverWindow({ data: [{ id: "m" }] }, "m")).toBeUndefined();
    expect(contextLimitFor({ window: 2048 })).toBe(1536);
    expect(contextLimitFor({ window: 2048, maxOutputTokens: 256 })).toBe(1792);
    expect(contextLimitFor({ window: 2048, spec: 900 })).toBe(900);
    expect(contextLimitFor({})).toBeUndefined();
    // A server that advertises a 3,000-token window: the attempt runs with 3,000 − 750, and with
    // observations over it the oldest are cut (the policy server reads whole files).
    scripted = await startScriptedModelServer({
      models: ["windowed"],
      maxModelLen: 3000,
      script: [
        { content: "tree", toolCalls: [{ name: "repo_tree", arguments: "{}" }] },
        ...["abacus/core/parse.py", "abacus/core/render.py", "abacus/core/store.py", "abacus/core/route.py"].map(
          (path) => ({ content: "view", toolCalls: [{ name: "view_file", arguments: JSON.stringify({ path }) }] }),
        ),
        {
          content: "done",
          toolCalls: [
            {
              name: "submit_localization",
              arguments: JSON.stringify({
                locations: [{ path: "abacus/core/parse.py", startLine: 1, endLine: 2, role: "edit" }],
                finding: {
                  locationExplanation: "a",
                  rootCause: "b",
                  solutionIdea: "c",
                  dependencies: "d",
                  testingImpact: "e",
                },
              }),
            },
          ],
        },
      ],
    });
    const spec = await specFor({
      instances: [toy.rows[0]?.instance_id as string],
      controls: [{ kind: "plain" }],
      endpoints: [{ baseURL: scripted.url, model: "windowed" }],
    });
    await startRun(spec);
    const [record] = ledger(spec.out);
    expect(record).toMatchObject({ outcome: "finished", contextLimitTokens: 2250 });
    const { steps } = readSteps(join(spec.out, record?.trajectory as string));
    const last = rebuildRequests(steps).at(-1)?.messages ?? [];
    expect(last.some((message) => message.role === "tool" && message.content.startsWith("[observation of "))).toBe(
      true,
    );
  });

  it("a server that refuses a prompt as too long (HTTP 400, vLLM's words) ends the attempt as context_limit, not model_error", async () => {
    scripted = await startScriptedModelServer({
      models: ["strict"],
      script: [
        {
          fault: "http-400",
          message:
            "This model's maximum context length is 4096 tokens. However, your request has 6771 input tokens. Please reduce the length of the input messages.",
        },
      ],
    });
    const spec = await specFor({
      instances: [toy.rows[0]?.instance_id as string],
      controls: [{ kind: "plain" }],
      endpoints: [{ baseURL: scripted.url, model: "strict" }],
    });
    await startRun(spec);
    const [record] = ledger(spec.out);
    expect(record).toMatchObject({ outcome: "budget_exhausted", exit: "context_limit" });
    expect((await localizationBreakdown(spec.out)).rows).toEqual([
      expect.objectContaining({ contextLimit: 1, modelError: 0 }),
    ]);
  });
});

// Preparation off the model slot: what the test looks at is outside the scheduler, the cache
// on disk at the moment a slot is taken.
describe("first real use: preparation ahead of the endpoint slot", () => {
  it("every shuffled attempt takes its slot with its shuffled copy already in the cache, and the run's outcomes are those of a run on the copies made", async () => {
    const cacheDir = join(await mkdtemp(join(tmpdir(), "loclab-prepare-")), "cache");
    const oneSlot = () =>
      specFor({
        controls: [{ kind: "shuffled", seed: 7 }, { kind: "plain" }],
        endpoints: [{ baseURL: policy.url, model: "toy-policy", maxConcurrency: 1 }],
        cacheDir,
        preparation: { concurrency: 2 },
      });
    const byId = new Map(toy.rows.map((row) => [row.instance_id, row]));
    const atSlot: { cell: string; copyThere: boolean; treeThere: boolean }[] = [];
    const onEvent = (event: RunEvent) => {
      if (event.type !== "attempt-start") return;
      const row = byId.get(event.instanceId);
      if (!row) throw new Error(`no toy row ${event.instanceId}`);
      const copy = shuffledCopyFolder(cacheDir, row.repo, row.base_commit, 7);
      atSlot.push({
        cell: event.cell,
        copyThere: existsSync(join(copy, "mapping.json")) && existsSync(join(copy, "tree")),
        treeThere: existsSync(join(cacheDir, row.repo.replace("/", "__"), row.base_commit, "tree")),
      });
    };
    const firstSpec = await oneSlot();
    const first = await startRun(firstSpec, { onEvent });
    expect(first.complete).toBe(true);
    expect(first.keys).toBe(2 * toy.rows.length);
    const shuffled = atSlot.filter((seen) => seen.cell.includes("shuffled"));
    expect(shuffled).toHaveLength(toy.rows.length);
    // The copy (and the checkout it is made from) is on disk when the slot is taken: the slot
    // never waited for a checkout or a shuffle. Without preparation ahead, the first attempt at
    // each commit made its copy while holding the slot.
    expect(shuffled.filter((seen) => !seen.copyThere)).toEqual([]);
    expect(atSlot.filter((seen) => !seen.treeThere)).toEqual([]);
    // A second run over the same cache (the copies made before it) records the same outcomes
    // and predictions: preparing ahead changes when the work is done, not what the model sees.
    const againSpec = await oneSlot();
    const again = await startRun(againSpec);
    expect(again.outcomes).toEqual(first.outcomes);
    expect(again.predicted).toBe(first.predicted);
    const summary = (records: RunRecord[]) =>
      records
        .map(
          (record) =>
            `${JSON.stringify(record.control)} ${record.instanceId} ${record.outcome} ${JSON.stringify(record.prediction?.locations ?? null)}`,
        )
        .sort();
    expect(summary(ledger(againSpec.out))).toEqual(summary(ledger(firstSpec.out)));
    expect(ledger(firstSpec.out).every((record) => record.outcome !== "failed")).toBe(true);
  });

  it("refuses a preparation concurrency below 1, naming the field", async () => {
    await expect(specFor({ preparation: { concurrency: 0 } })).rejects.toThrow(/preparation\.concurrency/);
  });
});
