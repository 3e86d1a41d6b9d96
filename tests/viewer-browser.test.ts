/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { appendFileSync, cpSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { listTrajectories, type RunFormat, readTrajectory } from "@loclab/analysis";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { goldFromPatch } from "@loclab/gold";
import { parseRunSpec, type RunScore, scoreRun, startRun } from "@loclab/runner";
import { cellLabel, isFinalOutcome, type RunRecord, RunRecordSchema } from "@loclab/schemas";
import { exactMcNemar } from "@loclab/statistics";
import { runSite } from "@loclab/viewer";
import { execa } from "execa";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardNetwork, launchChromium } from "./browser.js";
import { dataDir } from "./helpers.js";

// The viewer in a real browser (Debian's chromium through playwright-core): the site of a real
// localization run (toy benchmark, real git mirrors, the policy model server over HTTP; two
// seeds × plain, masked, shuffled) made by `loclab report`, opened from disk; `loclab view` over
// HTTP while the ledger grows. Expected values come from the run's own files (the ledger, the
// trajectories, the gold patch), never from the viewer's code.

const CLI = resolve("packages/cli/dist/bin.js");
/** Screenshots of the three views go here when set (the closing note's evidence). */
const SHOTS = process.env.LOCLAB_SCREENSHOTS;

let toy: ToyBenchmark;
let server: PolicyModelServer;
let run: string;
let site: string;
let score: RunScore;
let finals: RunRecord[];
let browser: Browser;

beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 4 });
  // slip: the policy sometimes takes a caller instead of the definition, so cells disagree.
  server = await startPolicyModelServer({ slip: 0.5, turns: 4 });
  const out = await mkdtemp(join(tmpdir(), "loclab-viewer-"));
  run = join(out, "run");
  site = join(out, "site");
  const spec = parseRunSpec({
    name: "viewer-test",
    benchmark: toy.benchmark,
    seeds: [1, 2],
    controls: [{ kind: "plain" }, { kind: "masked" }, { kind: "shuffled", seed: 7 }],
    endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 4 }],
    repos: toy.mirrors,
    out: run,
    retry: { backoffSeconds: 0, probeSeconds: 0.05, healthSeconds: 0.2 },
  });
  await startRun(spec);
  score = await scoreRun(run, { write: false });
  finals = readFileSync(join(run, "attempts.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => RunRecordSchema.parse(JSON.parse(line)))
    .filter((record) => isFinalOutcome(record.outcome));
  const report = await execa("node", [CLI, "report", run, "--out", site], { reject: false });
  expect(report.exitCode, report.stderr).toBe(0);
  expect(report.stdout).toContain(`${finals.length} trajectory files written`);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await toy?.dispose();
});

/** acc@1 of a record as `loclab run score` has it (score.json's per-instance values). */
function acc1(record: RunRecord): number | undefined {
  const cell = score.cells.find((c) => c.cell === cellLabel(record));
  const index = score.instanceIds.indexOf(record.instanceId);
  return cell?.perInstance["file.acc@1"]?.[index] ?? undefined;
}

async function openSite(url: string, origin: string) {
  const context: BrowserContext = await browser.newContext({
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  const network = await guardNetwork(context, origin);
  const page: Page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector("body[data-ready=true]");
  return { context, page, network, errors };
}

async function shot(page: Page, name: string) {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  // The same view as a greyscale print shows it.
  const grey = await page.addStyleTag({ content: "html { filter: grayscale(1); }" });
  await page.screenshot({ path: join(SHOTS, `${name}-grey.png`), fullPage: false });
  await grey.evaluate((node) => (node as HTMLElement).remove());
}

describe("the viewer in a real browser", () => {
  it("opens from disk: the overview shows the cells with their metrics, the paired comparisons, the charts and the manifest; no request leaves the site", async () => {
    const { context, page, network, errors } = await openSite(pathToFileURL(join(site, "index.html")).href, "file://");
    try {
      const cells = await page.$$eval("#cells tr", (rows) =>
        rows.slice(1).map((row) => row.querySelector("td")?.textContent),
      );
      expect(cells.sort()).toEqual(score.cells.map((cell) => cell.cell).sort());
      // Each cell's acc@1 column is the run's own (score.json), to three places.
      const header = await page.$$eval("#cells tr:first-child th", (ths) => ths.map((th) => th.textContent));
      const column = header.indexOf("file.acc@1");
      expect(column).toBeGreaterThan(0);
      for (const cell of score.cells) {
        const shown = await page.$eval(
          `#cells tr:has(td a:text-is("${cell.cell}")) td:nth-child(${column + 1})`,
          (td) => td.textContent,
        );
        expect(Number(shown)).toBeCloseTo(cell.metrics["file.acc@1"]!, 3);
      }
      // Each control against plain, per seed and pooled, with McNemar and the interval.
      expect(await page.$$eval("#comparisons tr", (rows) => rows.length - 1)).toBe(score.comparisons.length);
      expect(await page.locator(".chart svg").count()).toBe(2);
      expect(await page.locator("#manifest pre").textContent()).toContain('"viewer-test"');
      await shot(page, "overview");
      // A site from disk is not live: no badge, no event stream asked for.
      expect(await page.isVisible("#live")).toBe(false);
      expect(errors).toEqual([]);
      expect(network.foreign).toEqual([]);
      expect(network.requests.every((url) => url.startsWith("file://"))).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("instances: a filter expression keeps exactly the rows it says, sorting orders them, a bad expression is named with its position", async () => {
    const { context, page, network, errors } = await openSite(
      `${pathToFileURL(join(site, "index.html")).href}#/instances`,
      "file://",
    );
    try {
      expect(await page.textContent("#count")).toBe(`${finals.length} of ${finals.length} rows`);
      const expression = 'control == "masked" and acc1 == 0 and turns < 5';
      const expected = finals.filter(
        (record) => record.control.kind === "masked" && acc1(record) === 0 && record.turns < 5,
      );
      expect(expected.length, "the expression keeps some rows and drops others").toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(finals.length);
      const before = await page.getAttribute("body", "data-filtered");
      await page.fill("#filter", expression);
      await page.waitForFunction((b) => document.body.getAttribute("data-filtered") !== b, before);
      expect(await page.textContent("#count")).toBe(`${expected.length} of ${finals.length} rows`);
      const shown = await page.$$eval(".vt-row", (rows) =>
        rows.map((row) => [...row.querySelectorAll("span")].map((span) => span.textContent)),
      );
      expect(shown).toHaveLength(expected.length);
      // The columns shown (those with a value in some row: a localization run has no arm, resolved or judge).
      const header = await page.$$eval(".vt-head span", (spans) =>
        spans.map((span) => span.getAttribute("data-column")),
      );
      expect(header).not.toContain("resolved");
      const col = (name: string) => header.indexOf(name);
      expect(shown.map((row) => row[col("instance")]).sort()).toEqual(
        expected.map((record) => record.instanceId).sort(),
      );
      expect(new Set(shown.map((row) => row[col("control")]))).toEqual(new Set(["masked"]));
      await shot(page, "instances");
      // A second expression: or, not, contains, a bare column.
      const second = 'instance ~ "ABACUS" and not acc1 or cell == "seed-2/plain"';
      const kept = finals.filter(
        (record) =>
          (record.instanceId.toLowerCase().includes("abacus") && !acc1(record)) || cellLabel(record) === "seed-2/plain",
      );
      expect(kept.length).toBeGreaterThan(0);
      await page.evaluate(
        (text) => (window as unknown as { loclab: { filterNow(t: string): number } }).loclab.filterNow(text),
        second,
      );
      expect(await page.textContent("#count")).toBe(`${kept.length} of ${finals.length} rows`);

      // Sort by tokens (they differ from row to row): ascending, then descending on a second click.
      await page.fill("#filter", "");
      await page.waitForFunction(
        (n) => document.querySelector("#count")?.textContent === `${n} of ${n} rows`,
        finals.length,
      );
      const tokens = finals.map((record) => record.usage.totalTokens!);
      expect(new Set(tokens).size).toBeGreaterThan(1);
      const firstTokens = () =>
        page.$eval(`.vt-row span:nth-child(${col("tokens") + 1})`, (span) => Number(span.textContent));
      await page.click('.vt-head span[data-column="tokens"]');
      expect(await firstTokens()).toBe(Math.min(...tokens));
      await page.click('.vt-head span[data-column="tokens"]');
      expect(await firstTokens()).toBe(Math.max(...tokens));

      // A wrong expression is named with its position and leaves the rows as they were.
      await page.evaluate(
        (text) => (window as unknown as { loclab: { filterNow(t: string): number } }).loclab.filterNow(text),
        expression,
      );
      await page.fill("#filter", "turns <");
      await page.waitForFunction(() => (document.querySelector("#filter-error")?.textContent ?? "") !== "");
      expect(await page.textContent("#filter-error")).toBe("at 7: expected a column or a value");
      expect(await page.textContent("#count")).toBe(`${expected.length} of ${finals.length} rows`);
      expect(errors).toEqual([]);
      expect(network.foreign).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("pair view: the b and c tasks of two cells with exact McNemar; one click opens both trajectories side by side, turn by turn", async () => {
    // The pair with the most discordant tasks, counted from the ledger and score.json.
    const cells = score.cells.map((cell) => cell.cell).sort();
    let best: { a: string; b: string; aOnly: string[]; bOnly: string[] } | undefined;
    for (const a of cells)
      for (const b of cells) {
        if (a >= b) continue;
        const outcome = (cell: string) =>
          new Map(
            finals.filter((record) => cellLabel(record) === cell).map((record) => [record.instanceId, acc1(record)]),
          );
        const x = outcome(a);
        const y = outcome(b);
        const aOnly = [...x].filter(([id, v]) => v === 1 && y.get(id) === 0).map(([id]) => id);
        const bOnly = [...y].filter(([id, v]) => v === 1 && x.get(id) === 0).map(([id]) => id);
        if (!best || aOnly.length + bOnly.length > best.aOnly.length + best.bOnly.length) best = { a, b, aOnly, bOnly };
      }
    expect(best!.aOnly.length + best!.bOnly.length, "the run has discordant tasks").toBeGreaterThan(0);
    const { a, b, aOnly, bOnly } = best!;
    const { context, page, network, errors } = await openSite(
      `${pathToFileURL(join(site, "index.html")).href}#/pairs?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`,
      "file://",
    );
    try {
      const listed = async (id: string) =>
        page.$$eval(`#${id} tr td:first-child`, (tds) => tds.map((td) => td.textContent ?? "").sort());
      expect(await listed("b-tasks")).toEqual([...aOnly].sort());
      expect(await listed("c-tasks")).toEqual([...bOnly].sort());
      const p = exactMcNemar({ b: aOnly.length, c: bOnly.length }).p;
      expect(await page.textContent("#pair-stats")).toContain(`exact McNemar p = ${p.toFixed(4)}`);
      await shot(page, "pairs");

      const id = aOnly[0] ?? bOnly[0]!;
      await page.click(`#${aOnly.length ? "b-tasks" : "c-tasks"} a.compare`);
      await page.waitForSelector("#aligned");
      const turns = (cell: string) => finals.find((r) => cellLabel(r) === cell && r.instanceId === id)!.turns;
      // Two columns: turn i of A beside turn i of B, as many rows as the longer one.
      expect(await page.locator("#aligned > *").count()).toBe(2 * Math.max(turns(a), turns(b)));
      expect(await page.textContent("#left .traj-head")).toContain(id);
      expect(await page.textContent("#right .traj-head")).toContain(id);
      expect(await page.textContent("#left .traj-head")).toContain(a);
      expect(await page.textContent("#right .traj-head")).toContain(b);
      expect(errors).toEqual([]);
      expect(network.foreign).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("trajectory: step through the turns; the gold overlay marks each gold span and final location hit, near or miss as the run's own files say; shuffled paths map back; search within and across", async () => {
    const summary = JSON.parse(
      readFileSync(join(site, "data", "summary.js"), "utf8")
        .replace(/^loclabData\("summary",/, "")
        .replace(/\);\n$/, ""),
    );
    const rowOf = (record: RunRecord) =>
      summary.rows.t[
        summary.rows.instance.findIndex(
          (id: string, i: number) => id === record.instanceId && summary.rows.cell[i] === cellLabel(record),
        )
      ] as number;
    const marks = new Set<string>();
    for (const control of ["plain", "shuffled"]) {
      const record = finals.find((r) => r.control.kind === control && r.turns >= 2)!;
      const row = toy.rows.find((r) => r.instance_id === record.instanceId)!;
      const gold = goldFromPatch(row.patch, { instanceId: row.instance_id });
      // Expected from the raw trajectory: the lines each search_code hit showed, in the workspace's names.
      const steps = readFileSync(join(run, record.trajectory!), "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => JSON.parse(line));
      const shownLines: { path: string; line: number }[] = [];
      for (const step of steps)
        for (const call of step.toolCalls)
          for (const hit of String(call.observation ?? "").matchAll(/^([^\s:][^:\n]*):(\d+):/gm))
            if (call.name === "search_code") shownLines.push({ path: hit[1]!, line: Number(hit[2]) });
      const mapping =
        control === "shuffled"
          ? (JSON.parse(
              readFileSync(
                join(
                  parseRunSpec(JSON.parse(readFileSync(join(run, "manifest.json"), "utf8")).spec).cacheDir!,
                  "shuffled",
                  "seed-7",
                  row.repo.replace("/", "__"),
                  row.base_commit,
                  "mapping.json",
                ),
                "utf8",
              ),
            ).files as Record<string, string>)
          : undefined;
      const shuffledName = (path: string) => mapping?.[path] ?? path;

      const { context, page, network, errors } = await openSite(
        `${pathToFileURL(join(site, "index.html")).href}#/t/${rowOf(record)}`,
        "file://",
      );
      try {
        await page.waitForSelector("#steps");
        expect(await page.textContent("#step-pos")).toBe(`turn 1 of ${record.turns}`);
        await page.click("#next-step");
        expect(await page.textContent("#step-pos")).toBe(`turn 2 of ${record.turns}`);
        expect(await page.getAttribute(".step.current", "data-step")).toBe("1");
        await page.click("#prev-step");
        expect(await page.getAttribute(".step.current", "data-step")).toBe("0");

        // Each gold span: hit when a call showed one of its lines, near within 20 lines, else miss.
        for (const span of gold.spans) {
          const inFile = shownLines.filter((shown) => shown.path === shuffledName(span.path));
          const within = (margin: number) =>
            inFile.some((shown) => shown.line >= span.startLine - margin && shown.line <= span.endLine + margin);
          const expected = within(0) ? "hit" : within(20) ? "near" : "miss";
          const mark = await page.getAttribute(
            `#gold tr[data-span="${span.path}:${span.startLine}-${span.endLine}"]`,
            "data-mark",
          );
          expect(mark, `${span.path}:${span.startLine}-${span.endLine}`).toBe(expected);
          marks.add(expected);
        }
        // Each final location (original paths) against the gold spans the same way.
        for (const location of record.prediction?.locations ?? []) {
          const spans = gold.spans.filter((span) => span.path === location.path);
          const overlaps = (margin: number) =>
            spans.some(
              (span) => location.startLine <= span.endLine + margin && span.startLine - margin <= location.endLine,
            );
          const expected = overlaps(0) ? "hit" : overlaps(20) ? "near" : "miss";
          const key = `${location.path}:${location.startLine}-${location.endLine}`;
          expect(await page.getAttribute(`#final tr[data-location="${key}"]`, "data-mark"), key).toBe(expected);
          marks.add(expected);
        }
        if (control === "shuffled") {
          // Every touch of a gold file carries its original name, and the map lists the renaming.
          expect(await page.textContent("#path-map")).toContain(gold.files[0]!);
          expect(await page.locator(`.touches [data-path="${gold.files[0]}"]`).count()).toBeGreaterThan(0);
        } else await shot(page, "trajectory");

        // Search within: the function's name, highlighted.
        await page.fill("#traj-search", row.function);
        await page.press("#traj-search", "Enter");
        await page.waitForFunction(() => (document.querySelector("#match-count")?.textContent ?? "") !== "");
        expect(Number((await page.textContent("#match-count"))!.split(" ")[0])).toBeGreaterThan(0);
        expect(errors).toEqual([]);
        expect(network.foreign).toEqual([]);
      } finally {
        await context.close();
      }
    }

    // The fixture's policy searches (showing a definition's line next to the planted bug) and
    // hands in the bug's lines: both marks appear.
    expect([...marks].sort()).toEqual(["hit", "near"]);

    // Across: every trajectory that mentions the function, found by reading each one once.
    const word = toy.rows[0]!.function;
    const mentioning = finals.filter((record) =>
      readFileSync(join(run, record.trajectory!), "utf8").toLowerCase().includes(word.toLowerCase()),
    );
    const { context, page } = await openSite(
      `${pathToFileURL(join(site, "index.html")).href}#/search?q=${encodeURIComponent(word)}`,
      "file://",
    );
    try {
      await page.waitForSelector("body[data-search=done]");
      // The raw file also holds the prompt (not shown as a step): the site finds a subset, never more.
      const found = await page.locator("#search-results tr").count();
      expect(found - 1).toBeGreaterThan(0);
      expect(found - 1).toBeLessThanOrEqual(mentioning.length);
    } finally {
      await context.close();
    }
  });

  it("the run's own results/score.json is used while it is newer than the ledger, and recomputed once the ledger changes", async () => {
    const copy = join(await mkdtemp(join(tmpdir(), "loclab-viewer-score-")), "run");
    cpSync(run, copy, { recursive: true });
    const written = await scoreRun(copy);
    expect(written.written).toContain("results/score.json");
    // Mark the file so that reading it shows: every cell's acc@1 set to 0.123.
    const file = join(copy, "results", "score.json");
    const score = JSON.parse(readFileSync(file, "utf8"));
    for (const cell of score.cells) cell.metrics["file.acc@1"] = 0.123;
    writeFileSync(file, JSON.stringify(score));
    const fromFile = await runSite(copy);
    expect(fromFile.summary.cells.map((cell) => cell.metrics["file.acc@1"])).toEqual(score.cells.map(() => 0.123));
    // The ledger changes after it (a line appended): the run is scored again, as loclab run score would.
    appendFileSync(join(copy, "attempts.jsonl"), "");
    const later = new Date(Date.now() + 2000);
    utimesSync(join(copy, "attempts.jsonl"), later, later);
    const rescored = await runSite(copy);
    expect(rescored.summary.cells.map((cell) => cell.metrics["file.acc@1"]).sort()).toEqual(
      written.cells.map((cell) => cell.metrics["file.acc@1"]).sort(),
    );
  });

  it("outcome colours differ in greyscale lightness as well as hue, and each outcome also carries a glyph and a word", async () => {
    const { context, page } = await openSite(pathToFileURL(join(site, "index.html")).href, "file://");
    try {
      const styles = await page.evaluate(() =>
        ["good", "near", "bad", "open"].map((kind) => {
          const span = document.createElement("span");
          span.className = `badge ${kind}`;
          span.textContent = kind;
          document.body.appendChild(span);
          const style = getComputedStyle(span);
          const before = getComputedStyle(span, "::before").content;
          return { kind, background: style.backgroundColor, before };
        }),
      );
      // Grey as CSS's grayscale(1) makes it: Rec. 709 luma of the sRGB values.
      const grey = (css: string) => {
        const [r, g, b] = css.match(/\d+(\.\d+)?/g)!.map(Number) as [number, number, number];
        return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
      };
      const levels = styles.map((style) => grey(style.background));
      for (let i = 0; i < levels.length; i++)
        for (let j = i + 1; j < levels.length; j++)
          expect(Math.abs(levels[i]! - levels[j]!), `${styles[i]!.kind} vs ${styles[j]!.kind}`).toBeGreaterThanOrEqual(
            0.18,
          );
      expect(new Set(styles.map((style) => style.before)).size).toBe(4);
    } finally {
      await context.close();
    }
  });

  it("imported trajectories (mini-swe-agent 1.x and 2.x, SWE-agent, AutoCodeRover): every one a row, each opens with the steps the analysis package reads", async () => {
    const folders: [string, RunFormat][] = [
      ["mini-swe-agent_deepseek-chat_lite", "mini-swe-agent"],
      ["mini-swe-agent_gemini-3-pro_verified", "mini-swe-agent"],
      ["swe-agent_gpt4_lite", "swe-agent"],
      ["autocoderover_gpt4_lite", "autocoderover"],
    ];
    for (const [name, format] of folders) {
      const dir = join(dataDir, "trajectories", name);
      const out = join(await mkdtemp(join(tmpdir(), "loclab-viewer-imported-")), "site");
      const report = await execa("node", [CLI, "report", dir, "--format", format, "--out", out], { reject: false });
      expect(report.exitCode, report.stderr).toBe(0);
      const entries = await listTrajectories(dir, format);
      const { context, page, network, errors } = await openSite(
        `${pathToFileURL(join(out, "index.html")).href}#/instances`,
        "file://",
      );
      try {
        expect(await page.textContent("#count"), name).toBe(`${entries.length} of ${entries.length} rows`);
        // The longest trajectory by the table's own sort, opened: its turns are the file's steps.
        await page.click('.vt-head span[data-column="turns"]');
        await page.click('.vt-head span[data-column="turns"]');
        const id = Number(await page.getAttribute(".vt-row", "data-t"));
        await page.click(".vt-row");
        await page.waitForSelector("#steps");
        const source = (await page.textContent(".traj-head"))!;
        const entry = entries.find((e) => source.includes(e.path.slice(dir.length + 1)))!;
        expect(entry, `${name}: the trajectory ${id} names its file`).toBeDefined();
        const trajectory = await readTrajectory(entry.path, format);
        expect(await page.locator("#steps .step").count()).toBe(trajectory.steps.length);
        expect(await page.textContent("#step-pos")).toBe(`turn 1 of ${trajectory.steps.length}`);
        if (name === "swe-agent_gpt4_lite") await shot(page, "imported-swe-agent");
        expect(errors).toEqual([]);
        expect(network.foreign).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  it("loclab view: served on 127.0.0.1, the page refreshes as the ledger grows; nothing is requested from another origin", async () => {
    // A copy of the run whose ledger holds its first half: the second half is appended while the page is open.
    const copy = join(await mkdtemp(join(tmpdir(), "loclab-viewer-live-")), "run");
    cpSync(run, copy, { recursive: true });
    const lines = readFileSync(join(run, "attempts.jsonl"), "utf8").trim().split("\n");
    const half = Math.floor(lines.length / 2);
    writeFileSync(join(copy, "attempts.jsonl"), `${lines.slice(0, half).join("\n")}\n`);
    const view = execa("node", [CLI, "view", copy, "--poll-seconds", "0.2"], { reject: false });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        view.stdout!.on("data", (chunk: Buffer) => {
          const found = /http:\/\/127\.0\.0\.1:\d+\//.exec(chunk.toString());
          if (found) resolveUrl(found[0]);
        });
        void view.then((result) => reject(new Error(`loclab view exited: ${result.stderr}`)));
      });
      const origin = url.replace(/\/$/, "");
      const { context, page, network, errors } = await openSite(`${url}#/instances`, origin);
      try {
        const countOf = (n: number) => `${n} of ${n} rows`;
        const firstHalf = lines
          .slice(0, half)
          .map((line) => JSON.parse(line))
          .filter((r) => isFinalOutcome(r.outcome)).length;
        expect(await page.textContent("#count")).toBe(countOf(firstHalf));
        expect(await page.isVisible("#live")).toBe(true);
        appendFileSync(join(copy, "attempts.jsonl"), `${lines.slice(half).join("\n")}\n`);
        await page.waitForFunction(
          (text) => document.querySelector("#count")?.textContent === text,
          countOf(finals.length),
        );
        expect(Number(await page.getAttribute("body", "data-revision"))).toBeGreaterThanOrEqual(1);
        // A trajectory is made on request.
        await page.click(".vt-row");
        await page.waitForSelector("#steps");
        expect(errors).toEqual([]);
        expect(network.foreign).toEqual([]);
        expect(network.requests.every((request) => request.startsWith(`${origin}/`))).toBe(true);
      } finally {
        await context.close();
      }
    } finally {
      view.kill("SIGTERM");
      await view;
    }
  });
});
