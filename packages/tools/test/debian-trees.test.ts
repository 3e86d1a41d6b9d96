// Against real code: Debian's python3-django (and, on request, python3-sympy) trees.
//   - search_code returns exactly the hits of `rg -F --no-ignore -n` for the frozen queries of
//     fixtures/django-queries.json (path, line and text of every matching line);
//   - the import graph agrees with test/reference/python_import_graph.py (Python's ast module).
// Skipped, with the missing package named, when a tree or ripgrep is not installed
// (`apt-get install -y --no-install-recommends python3-django python3-sympy ripgrep`).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sharedImportParsePool } from "@loclab/python";
import {
  type ImportGraph,
  PythonImportIndex,
  type SearchHit,
  type Workspace,
  openWorkspace,
  searchCode,
} from "../src/index.js";
import { DJANGO_TREE, SYMPY_TREE, findPython, findRipgrep } from "./helpers.js";

const rg = await findRipgrep();
const python = findPython();
const hasDjango = existsSync(join(DJANGO_TREE, "__init__.py"));
const hasSympy = existsSync(join(SYMPY_TREE, "__init__.py"));
const REFERENCE = join(import.meta.dirname, "reference", "python_import_graph.py");
const QUERIES = (
  JSON.parse(readFileSync(join(import.meta.dirname, "fixtures", "django-queries.json"), "utf8")) as {
    queries: { query: string; instance_id: string }[];
  }
).queries;

const missing = (what: string[]) => (what.length > 0 ? ` — skipped: install ${what.join(" and ")}` : "");

/** `rg -F --no-ignore -n` over `root`: each matching line as `path:line` → text. */
function ripgrepHits(root: string, query: string): Map<string, string> {
  const result = spawnSync(
    rg as string,
    [
      "-F",
      "--no-ignore",
      "-n",
      "--no-config",
      "--no-heading",
      "--with-filename",
      "--null",
      "--color",
      "never",
      "--",
      query,
      "./",
    ],
    {
      cwd: root,
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  if (result.status !== 0 && result.status !== 1) throw new Error(`rg failed: ${result.stderr.toString()}`);
  const hits = new Map<string, string>();
  const out = result.stdout;
  let start = 0;
  while (start < out.length) {
    let end = out.indexOf(0x0a, start);
    if (end < 0) end = out.length;
    const record = out.subarray(start, end);
    start = end + 1;
    const nul = record.indexOf(0);
    const path = record.subarray(0, nul).toString("utf8").replace(/^\.\//, "");
    const rest = record.subarray(nul + 1);
    const colon = rest.indexOf(0x3a);
    if (colon < 0 || !/^\d+$/.test(rest.subarray(0, colon).toString()))
      throw new Error(`unexpected rg output: ${record.toString()}`);
    let text = rest.subarray(colon + 1);
    if (text.length > 0 && text[text.length - 1] === 0x0d) text = text.subarray(0, text.length - 1);
    hits.set(`${path}:${rest.subarray(0, colon).toString()}`, text.toString("utf8"));
  }
  return hits;
}

function ourHits(hits: SearchHit[]): Map<string, string> {
  return new Map(hits.map((hit) => [`${hit.path}:${hit.line}`, hit.clipped ? "<clipped>" : hit.text]));
}

async function compareImports(
  tree: string,
  graphOf: (workspace: Workspace) => Promise<ImportGraph> = (workspace) => workspace.importGraph(),
): Promise<{ files: number; edges: number; external: number }> {
  const reference = JSON.parse(
    execFileSync(python as string, [REFERENCE, tree], { encoding: "utf8", maxBuffer: 1 << 30 }),
  ) as {
    files: Record<string, { targets: string[]; external: string[] }>;
    syntaxErrors: string[];
    parsed: number;
  };
  const workspace: Workspace = await openWorkspace({ root: tree });
  const graph = await graphOf(workspace);
  const sources = graph.files.filter((path) => path.endsWith(".py"));
  expect(reference.syntaxErrors).toEqual([]);
  expect(graph.stats.filesWithErrors).toEqual([]);
  expect(sources.length).toBe(reference.parsed);
  let edges = 0;
  let external = 0;
  const disagreements: string[] = [];
  for (const file of sources) {
    const expected = reference.files[file] ?? { targets: [], external: [] };
    edges += expected.targets.length;
    external += expected.external.length;
    const ours = JSON.stringify([graph.importsOf(file), graph.externalOf(file)]);
    const theirs = JSON.stringify([[...expected.targets].sort(), [...expected.external].sort()]);
    if (ours !== theirs) disagreements.push(`${file}: ours ${ours}, ast ${theirs}`);
  }
  expect(disagreements).toEqual([]);
  expect(graph.stats.edges).toBe(edges);
  return { files: sources.length, edges, external };
}

describe.skipIf(!hasDjango || !rg)(
  `search_code equals rg -F --no-ignore -n on Debian's django tree${missing([...(hasDjango ? [] : ["python3-django"]), ...(rg ? [] : ["ripgrep"])])}`,
  () => {
    it(`returns exactly ripgrep's hits for ${QUERIES.length} literal queries from SWE-bench django issues`, async () => {
      expect(QUERIES.length).toBeGreaterThanOrEqual(50);
      const workspace = await openWorkspace({ root: DJANGO_TREE });
      // ripgrep skips hidden files unless --hidden: the comparison is exact only on a tree without them.
      expect(
        (await workspace.paths()).filter((path) => path.split("/").some((segment) => segment.startsWith("."))),
      ).toEqual([]);
      let totalHits = 0;
      let queriesWithHits = 0;
      for (const { query } of QUERIES) {
        const ours = await searchCode(workspace, { query, maxHits: 1_000_000 });
        const theirs = ripgrepHits(DJANGO_TREE, query);
        const mine = ourHits(ours.hits);
        for (const [key, text] of mine)
          if (text === "<clipped>") mine.set(key, theirs.get(key) ?? "<clipped, not in rg>");
        expect({ query, hits: [...mine].sort() }).toEqual({ query, hits: [...theirs].sort() });
        expect(ours.truncated).toBe(0);
        totalHits += ours.totalHits;
        if (ours.totalHits > 0) queriesWithHits += 1;
      }
      expect(queriesWithHits).toBeGreaterThanOrEqual(40); // 51 of 72 on Debian 12's 3:3.2.25 tree
      expect(totalHits).toBeGreaterThan(1000);
    });

    it("agrees with rg -i on ASCII queries when ignoring case", async () => {
      const workspace = await openWorkspace({ root: DJANGO_TREE });
      for (const query of ["foreignkey", "GET_QUERYSET", "Max_Length"]) {
        const ours = await searchCode(workspace, { query, ignoreCase: true, maxHits: 1_000_000 });
        const result = spawnSync(
          rg as string,
          [
            "-F",
            "-i",
            "--no-ignore",
            "-n",
            "--no-config",
            "--no-heading",
            "--null",
            "--color",
            "never",
            "-c",
            "--",
            query,
            "./",
          ],
          { cwd: DJANGO_TREE, encoding: "utf8" },
        );
        const counted = result.stdout
          .split("\n")
          .filter(Boolean)
          .reduce((sum, line) => sum + Number(line.split("\0")[1]), 0);
        expect(ours.totalHits).toBe(counted);
      }
    });
  },
);

describe.skipIf(!hasDjango || !python)(
  `connected_tree agrees with Python's ast on Debian's django tree${missing([...(hasDjango ? [] : ["python3-django"]), ...(python ? [] : ["python3"])])}`,
  () => {
    it("resolves the same imports, file by file", async () => {
      const figures = await compareImports(DJANGO_TREE);
      expect(figures.files).toBeGreaterThan(800);
      expect(figures.edges).toBeGreaterThan(2500);
    });

    // The complete graph parsed on worker threads beside this one (the compiled worker of
    // @loclab/python's dist): the same imports as ast, and the same stored graph as one thread.
    const graphOn = async (workspace: Workspace, parseThreads: number) =>
      new PythonImportIndex(workspace, await workspace.paths(), { parseThreads }).graph();
    const storedWithoutCosts = (graph: ImportGraph) => {
      const stored = graph.toStored();
      return { ...stored, stats: { ...stored.stats, buildMs: 0, parseThreads: 0 } };
    };

    it("parsed on three threads: the same imports as ast, and the same graph as on one thread", async () => {
      let threaded: ImportGraph | undefined;
      await compareImports(DJANGO_TREE, async (workspace) => (threaded = await graphOn(workspace, 3)));
      expect(threaded?.stats.parseThreads).toBe(3);
      const single = await graphOn(await openWorkspace({ root: DJANGO_TREE }), 1);
      expect(single.stats.parseThreads).toBe(1);
      expect(storedWithoutCosts(threaded as ImportGraph)).toEqual(storedWithoutCosts(single));
    });

    it("a thread that stops mid-build: its files are parsed in this thread, and the graph is the same", async () => {
      const workspace = await openWorkspace({ root: DJANGO_TREE });
      const paths = await workspace.paths();
      const building = new PythonImportIndex(workspace, paths, { parseThreads: 2 }).graph();
      let built = false;
      void building.then(() => (built = true));
      // The build's pool (one worker thread beside this one) is closed while its first batches
      // are in flight: 30 ms in, its thread has not even loaded the grammar.
      await new Promise((resolve) => setTimeout(resolve, 30));
      await sharedImportParsePool(1).close();
      expect(built).toBe(false);
      const graph = await building;
      expect(graph.stats.parseThreads).toBe(2);
      const single = await graphOn(await openWorkspace({ root: DJANGO_TREE }), 1);
      expect(storedWithoutCosts(graph)).toEqual(storedWithoutCosts(single));
    });

    it("refuses a thread count that is not a whole number ≥ 1", async () => {
      const workspace = await openWorkspace({ root: DJANGO_TREE });
      expect(() => new PythonImportIndex(workspace, [], { parseThreads: 0 })).toThrow(
        "parseThreads: 0 is not a whole number ≥ 1",
      );
    });
  },
);

const sympyWanted = process.env.LOCLAB_TEST_SYMPY === "1";
describe.skipIf(!hasSympy || !python || !sympyWanted)(
  `connected_tree agrees with Python's ast on Debian's sympy tree${sympyWanted ? missing(hasSympy ? [] : ["python3-sympy"]) : " — skipped: slow (≈ 30 s); set LOCLAB_TEST_SYMPY=1"}`,
  () => {
    it("resolves the same imports, file by file", async () => {
      const figures = await compareImports(SYMPY_TREE);
      expect(figures.files).toBeGreaterThan(1400);
    });
  },
);
