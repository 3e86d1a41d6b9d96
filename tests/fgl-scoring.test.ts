/// <reference lib="dom" />
import { createServer, type Server } from "node:http";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Candidate,
  checkoutCode,
  type CodeSource,
  readScores,
  scoreCandidates,
  type ScoringEndpoint,
} from "@loclab/fgl";
import { buildCalcFixture, type CalcFixture } from "@loclab/fixtures";
import { materializeWorkspace } from "@loclab/tools";
import { fglSite, writeSite } from "@loclab/viewer";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardNetwork, launchChromium } from "./browser.js";

// FGL scoring (docs/definitions.md §5) over real HTTP against a scripted completions server (an
// honest fake: it tokenizes by a fixed rule and gives each token a log-probability that is a
// function of its text, so a score can be worked out by hand), with ctx(z) from a real git
// checkout of the calc fixture through the tools package.

/** The scripted tokenizer: runs of word characters, runs of spaces, and any other single character. */
const TOKEN = /\w+| +|\n|[^\w \n]/g;
const tokenize = (text: string) => [...text.matchAll(TOKEN)].map((m) => ({ text: m[0], offset: m.index }));
/** Every token's log p: −(its length)/10; the first token of the prompt has none, as vLLM reports it. */
const logprobOf = (token: string) => -token.length / 10;

type Mode = "ok" | "no-logprobs" | "flaky" | "cut" | "broken";
interface Scripted {
  server: Server;
  endpoint: ScoringEndpoint;
  completions: number;
  mode: Mode;
  /** The authorization header of every request, in order. */
  authorizations: (string | undefined)[];
}

async function scriptedServer(mode: Mode): Promise<Scripted> {
  const state = { completions: 0, mode, failuresLeft: 2, authorizations: [] } as unknown as Scripted & {
    failuresLeft: number;
  };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      state.authorizations.push(req.headers.authorization);
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      if (req.url === "/v1/models") return send(200, { data: [{ id: "scripted", max_model_len: 4096 }] });
      const request = JSON.parse(body || "{}");
      if (req.url === "/tokenize") return send(200, { count: tokenize(request.prompt).length });
      if (req.url === "/v1/completions") {
        state.completions += 1;
        if (state.mode === "flaky" && state.failuresLeft-- > 0) return send(503, { error: { message: "busy" } });
        if (state.mode === "broken") return send(500, { error: { message: "CUDA error: an illegal memory access" } });
        if (state.mode === "cut" && state.failuresLeft-- > 0) {
          // The headers, part of the body, then the connection goes (a server that dies mid-answer).
          res.writeHead(200, { "content-type": "application/json", "content-length": "4096" });
          res.write('{"choices":[');
          setTimeout(() => res.destroy(), 5);
          return;
        }
        const tokens = [...tokenize(request.prompt), { text: "!", offset: request.prompt.length }];
        const logprobs =
          state.mode === "no-logprobs"
            ? null
            : {
                text_offset: tokens.map((t) => t.offset),
                token_logprobs: tokens.map((t, i) => (i === 0 ? null : logprobOf(t.text))),
                tokens: tokens.map((t) => t.text),
                top_logprobs: null,
              };
        return send(200, {
          choices: [{ index: 0, text: `${request.prompt}!`, logprobs, finish_reason: "length" }],
          usage: { prompt_tokens: tokens.length - 1 },
        });
      }
      send(404, { error: "no route" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  state.server = server;
  state.endpoint = { baseURL: `http://127.0.0.1:${port}/v1`, model: "scripted" };
  return state;
}

let fixture: CalcFixture;
let dir: string;
let code: CodeSource;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "loclab-fgl-"));
  fixture = await buildCalcFixture({ dir: join(dir, "calc") });
  code = checkoutCode(
    await materializeWorkspace({ instance: fixture.row, mirrors: fixture.mirrors, cacheDir: join(dir, "cache") }),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const candidate = (id: string, locations: Candidate["locations"], teacher = false): Candidate => ({
  task: "acme__calc-1",
  id,
  kind: teacher ? "teacher" : "sample",
  teacher,
  locations,
  provenance: { source: "test" },
});
const FUNCTION = { path: "calc/ops.py", startLine: 8, endLine: 12, role: "edit" as const };
const CLI = { path: "calc/cli.py", startLine: 1, endLine: 7, role: "read" as const };

function task(candidates: Candidate[], patch = fixture.patch) {
  return { task: "acme__calc-1", repo: "acme/calc", issue: fixture.row.problem_statement, patch, candidates, code };
}

describe("scoreCandidates against a scripted completions server", () => {
  it("s_k = mean log p over y+'s tokens − λ_ctx·tok/1000 − λ_req·|a_k|, worked out by hand", async () => {
    const scripted = await scriptedServer("ok");
    const out = join(dir, "scores-1.jsonl");
    const summary = await scoreCandidates({
      tasks: [task([candidate("teacher", [FUNCTION], true), candidate("cli-only", [CLI])])],
      endpoints: [scripted.endpoint],
      out,
    });
    scripted.server.close();
    expect(summary).toMatchObject({ total: 2, scored: 2, failed: 0 });
    // y+ of the calc patch: the one added line "+    return sum(values) / len(values)"; its scripted tokens:
    const added = fixture.patch.split("\n").filter((line) => line.startsWith("+") && !line.startsWith("+++"));
    expect(added).toEqual(["+    return sum(values) / len(values)"]);
    const tokens = tokenize(added[0]!).map((t) => t.text);
    const mean = tokens.map(logprobOf).reduce((a, b) => a + b, 0) / tokens.length;
    const [teacher, cliOnly] = await readScores(out);
    expect(teacher).toMatchObject({
      candidate: "teacher",
      teacher: true,
      addedTokens: tokens.length,
      extraReads: 0,
      startsBefore: 0,
      runsPast: 0,
      shown: 1,
      omitted: 0,
      cut: false,
    });
    expect(cliOnly).toMatchObject({ candidate: "cli-only", extraReads: 1 });
    for (const record of [teacher, cliOnly]) {
      if (!record || !("score" in record)) throw new Error("no score");
      expect(record.meanLogprob).toBeCloseTo(mean, 12);
      // Each token of y+ with its line and log p (the viewer's heat map): together they spell the added line.
      expect(record.tokens).toEqual(tokens.map((text) => [0, text, logprobOf(text)]));
      expect(record.tokens!.map(([, text]) => text).join("")).toBe(added[0]);
      // tok(z): the rendered block's scripted tokens, as /tokenize counted them.
      expect(record.ctxTokens).toBeGreaterThan(10);
      expect(record.score).toBeCloseTo(mean - (0.0097 * record.ctxTokens) / 1000 - 0.017 * record.extraReads, 12);
    }
  });

  it("the viewer's FGL page: a row per candidate, y+'s tokens as a heat map shaded by log p, in a real browser", async () => {
    const scripted = await scriptedServer("ok");
    const out = join(dir, "scores-heat.jsonl");
    await scoreCandidates({
      tasks: [task([candidate("teacher", [FUNCTION], true), candidate("cli-only", [CLI])])],
      endpoints: [scripted.endpoint],
      out,
    });
    scripted.server.close();
    const source = await fglSite(out);
    expect(source.summary.rows.candidate).toEqual(["teacher", "cli-only"]);
    const added = "+    return sum(values) / len(values)";
    const view = await source.trajectories[0]!.view();
    expect(view.fgl!.lines).toEqual([{ text: added, tokens: tokenize(added).map((t) => [t.text, logprobOf(t.text)]) }]);
    const site = join(dir, "fgl-site");
    await writeSite(source, site);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const network = await guardNetwork(context, "file://");
      const page = await context.newPage();
      await page.goto(`${pathToFileURL(join(site, "index.html")).href}#/t/0`);
      await page.waitForSelector("#fgl .heat");
      const shown = await page.$$eval("#fgl .heat span", (spans) =>
        spans.map((span) => [
          span.textContent,
          Number(span.getAttribute("data-logprob")),
          getComputedStyle(span).backgroundColor,
        ]),
      );
      expect(shown.map(([text]) => text).join("")).toBe(added);
      expect(shown.map(([, logprob]) => logprob)).toEqual(tokenize(added).map((t) => logprobOf(t.text)));
      // The less likely token is the darker one: "values" (−0.6) darker than "(" (−0.1).
      const lightness = (css: string) => {
        const [r, g, b] = css.match(/\d+/g)!.map(Number) as [number, number, number];
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const of = (text: string) => lightness(shown.find(([t]) => t === text)![2] as string);
      expect(of("values")).toBeLessThan(of("("));
      expect(network.foreign).toEqual([]);
      await context.close();
    } finally {
      await browser.close();
    }
  });

  it("candidates whose ctx comes out the same are sent once and share the numbers", async () => {
    const scripted = await scriptedServer("ok");
    const out = join(dir, "scores-same.jsonl");
    // Lines 8-30 of the 12-line ops.py are clipped to 8-12: the same code as the function span.
    const summary = await scoreCandidates({
      tasks: [
        task([
          candidate("teacher", [FUNCTION], true),
          candidate("long", [{ ...FUNCTION, endLine: 30 }]),
          candidate("cli-only", [CLI]),
        ]),
      ],
      endpoints: [scripted.endpoint],
      out,
    });
    scripted.server.close();
    expect(summary).toMatchObject({ scored: 3, reusedPrompts: 1 });
    expect(scripted.completions).toBe(2);
    const [teacher, long] = (await readScores(out)).filter((r) => "score" in r);
    expect(long!.candidate).toBe("long");
    expect("score" in long! && "score" in teacher! && long.score === teacher.score).toBe(true);
  });

  it("resumes: a second run over the same file scores nothing again; a changed budget scores again", async () => {
    const scripted = await scriptedServer("ok");
    const out = join(dir, "scores-2.jsonl");
    const tasks = [task([candidate("teacher", [FUNCTION], true), candidate("cli-only", [CLI])])];
    await scoreCandidates({ tasks, endpoints: [scripted.endpoint], out });
    expect(scripted.completions).toBe(2);
    const again = await scoreCandidates({ tasks, endpoints: [scripted.endpoint], out });
    expect(again).toMatchObject({ skipped: 2, scored: 0, total: 2 });
    expect(scripted.completions).toBe(2);
    // A half-written last line (a crash mid-write) is not an error: it is set aside beside the
    // file, as the runner does with its ledger, and that candidate is scored again.
    await writeFile(out, `${(await readFile(out, "utf8")).split("\n")[0]}\n{"schemaVersion":1,"task":"acme`);
    const resumed = await scoreCandidates({ tasks, endpoints: [scripted.endpoint], out });
    expect(resumed).toMatchObject({ skipped: 1, scored: 1 });
    const torn = (await readdir(dir)).filter((name) => name.startsWith("scores-2.jsonl.torn-"));
    expect(torn).toHaveLength(1);
    expect(await readFile(join(dir, torn[0]!), "utf8")).toBe('{"schemaVersion":1,"task":"acme');
    expect(await readScores(out)).toHaveLength(2);
    // The endpoints are not part of what a score depends on: the same model on two endpoints
    // skips everything the one endpoint scored.
    const twice = await scoreCandidates({ tasks, endpoints: [scripted.endpoint, scripted.endpoint], out });
    expect(twice).toMatchObject({ skipped: 2, scored: 0 });
    const changed = await scoreCandidates({ tasks, endpoints: [scripted.endpoint], out, budget: 50 });
    expect(changed.scored).toBe(2);
    scripted.server.close();
  });

  it("bad input: a missing file, a patch without added lines, a server without logprobs — each named, the rest goes on", async () => {
    const scripted = await scriptedServer("ok");
    const out = join(dir, "scores-3.jsonl");
    const removalOnly = fixture.patch.replace(/^\+    return.*\n/m, "").replace("@@ -9,4 +9,4 @@", "@@ -9,4 +9,3 @@");
    const summaryTasks = () => [
      task([
        candidate("teacher", [FUNCTION], true),
        candidate("ghost", [{ path: "calc/missing.py", startLine: 1, endLine: 3, role: "read" }]),
        candidate("past-end", [{ path: "calc/ops.py", startLine: 400, endLine: 410, role: "read" }]),
      ]),
      { ...task([candidate("teacher", [FUNCTION], true)], removalOnly), task: "acme__calc-2" },
    ];
    const summary = await scoreCandidates({
      tasks: summaryTasks(),
      endpoints: [scripted.endpoint],
      out,
    });
    expect(summary).toMatchObject({ total: 4, scored: 1, failed: 3 });
    // Run again: the render failures are tried again (they depend on the code, not in the
    // digest), the score and the patch line are settled; the patch line is not written twice.
    const again = await scoreCandidates({ tasks: summaryTasks(), endpoints: [scripted.endpoint], out });
    scripted.server.close();
    expect(again).toMatchObject({ total: 4, skipped: 2, failed: 2, scored: 0 });
    expect((await readScores(out)).filter((r) => "errorKind" in r && r.errorKind === "patch")).toHaveLength(1);
    const records = await readScores(out);
    const errors = records
      .filter((r) => "error" in r)
      .map((r) => ("error" in r ? [r.task, r.candidate, r.errorKind, r.error] : []));
    expect(errors).toEqual(
      expect.arrayContaining([
        ["acme__calc-1", "ghost", "render", "acme__calc-1 / ghost: calc/missing.py does not exist at base commit"],
        [
          "acme__calc-1",
          "past-end",
          "render",
          expect.stringMatching(/calc\/ops\.py: lines 400-410 are past the file's end \(12 lines\)/),
        ],
        ["acme__calc-2", null, "patch", expect.stringContaining("adds no line")],
      ]),
    );

    const silent = await scriptedServer("no-logprobs");
    const out2 = join(dir, "scores-4.jsonl");
    const result = await scoreCandidates({
      tasks: [task([candidate("teacher", [FUNCTION], true)])],
      endpoints: [silent.endpoint],
      out: out2,
    });
    silent.server.close();
    expect(result.failed).toBe(1);
    expect(await readScores(out2)).toEqual([
      expect.objectContaining({
        errorKind: "request",
        error: expect.stringContaining("has no logprobs (the server does not support echo + logprobs)"),
      }),
    ]);
  });

  it("retries infrastructure errors (503) and spreads work over two endpoints; a dead endpoint fails before any work", async () => {
    const flaky = await scriptedServer("flaky");
    const steady = await scriptedServer("ok");
    const out = join(dir, "scores-5.jsonl");
    const many = Array.from({ length: 6 }, (_, i) =>
      candidate(`c${i}`, [{ ...FUNCTION, startLine: 8 - (i % 4), endLine: 12 }], i === 0),
    );
    const summary = await scoreCandidates({
      tasks: [task(many)],
      endpoints: [flaky.endpoint, steady.endpoint],
      out,
      retryDelayMs: 10,
    });
    expect(summary).toMatchObject({ scored: 6, failed: 0 });
    expect(flaky.completions).toBeGreaterThan(2);
    expect(steady.completions).toBeGreaterThan(0);
    // The same candidate scored on each endpoint alone gives the same score (the scripted servers are deterministic).
    const alone = async (endpoint: ScoringEndpoint, file: string) => {
      await scoreCandidates({
        tasks: [task([many[0]!])],
        endpoints: [endpoint],
        out: join(dir, file),
        retryDelayMs: 10,
      });
      return (await readScores(join(dir, file))).map((r) => ("score" in r ? r.score : r.error));
    };
    const onFlaky = await alone(flaky.endpoint, "scores-5a.jsonl");
    expect(onFlaky).toEqual([expect.any(Number)]);
    expect(await alone(steady.endpoint, "scores-5b.jsonl")).toEqual(onFlaky);
    const port = (steady.server.address() as { port: number }).port;
    flaky.server.close();
    steady.server.close();
    await expect(
      scoreCandidates({
        tasks: [task(many)],
        endpoints: [{ baseURL: `http://127.0.0.1:${port}/v1`, model: "scripted" }],
        out: join(dir, "scores-6.jsonl"),
      }),
    ).rejects.toThrow(
      /^no endpoint is ready, nothing was started: endpoints\[0\] http:\/\/127\.0\.0\.1:\d+\/v1: .+ \(is the server up\?\)$/,
    );
  });

  it("an endpoint URL with credentials scores over HTTP Basic, and the password reaches no line of the scores file", async () => {
    const server = await scriptedServer("ok");
    const secret = "hunter2-fgl-secret";
    const endpoint = {
      ...server.endpoint,
      baseURL: server.endpoint.baseURL.replace("http://", `http://alice:${secret}@`),
    };
    const out = join(dir, "scores-7.jsonl");
    const summary = await scoreCandidates({
      tasks: [task([candidate("c0", [FUNCTION], true)])],
      endpoints: [endpoint],
      out,
    });
    server.server.close();
    expect(summary).toMatchObject({ scored: 1, failed: 0 });
    const basic = `Basic ${Buffer.from(`alice:${secret}`).toString("base64")}`;
    expect(new Set(server.authorizations)).toEqual(new Set([basic]));
    const text = await readFile(out, "utf8");
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(`alice:${secret}`).toString("base64"));
    expect((await readScores(out))[0]).toMatchObject({ endpoint: server.endpoint.baseURL });
  });

  it("an answer cut off after its headers is retried like any transport fault; the run goes on", async () => {
    const server = await scriptedServer("cut");
    const out = join(dir, "scores-8.jsonl");
    const summary = await scoreCandidates({
      tasks: [task([candidate("c0", [FUNCTION], true)])],
      endpoints: [server.endpoint],
      out,
      retryDelayMs: 5,
    });
    server.server.close();
    expect(summary).toMatchObject({ scored: 1, failed: 0 });
    expect(server.completions).toBe(3);
  });

  it("runs over the runner's pool: one of two endpoints down at the start or broken mid-run, the other scores every candidate", async () => {
    const steady = await scriptedServer("ok");
    const broken = await scriptedServer("broken");
    const many = Array.from({ length: 5 }, (_, i) =>
      candidate(`c${i}`, [{ ...FUNCTION, startLine: 8 - i, endLine: 12 }]),
    );
    const events: string[] = [];
    const summary = await scoreCandidates({
      tasks: [task(many)],
      endpoints: [broken.endpoint, steady.endpoint],
      out: join(dir, "scores-9.jsonl"),
      attempts: 2,
      retryDelayMs: 1,
      pool: { probeMs: 60_000 },
      onPoolEvent: (event) => events.push(event.type),
    });
    expect(summary).toMatchObject({ scored: 5, failed: 0 });
    const records = await readScores(join(dir, "scores-9.jsonl"));
    expect(new Set(records.map((r) => ("endpoint" in r ? r.endpoint : r.error)))).toEqual(
      new Set([steady.endpoint.baseURL]),
    );
    // The broken server got a candidate, failed it twice (the client's retry), the candidate went
    // to the other; its faults took it out of the pool before it could take many more.
    expect(broken.completions).toBeGreaterThanOrEqual(2);
    expect(broken.completions).toBeLessThanOrEqual(4);
    expect(events).toContain("endpoint-down");

    const port = (broken.server.address() as { port: number }).port;
    broken.server.close();
    const down = await scoreCandidates({
      tasks: [task(many)],
      endpoints: [{ baseURL: `http://127.0.0.1:${port}/v1`, model: "scripted" }, steady.endpoint],
      out: join(dir, "scores-10.jsonl"),
      pool: { probeMs: 60_000 },
    });
    steady.server.close();
    expect(down).toMatchObject({ scored: 5, failed: 0 });
  });
});
