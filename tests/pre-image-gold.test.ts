import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldAtBaseCommit, readObjects } from "@loclab/checkouts";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import { goldAtPreImage, goldFromPatch, parsePatch, placeHunks } from "@loclab/gold";
import { loadPythonImportParser, pythonDefinitions } from "@loclab/python";
import { loclab } from "./helpers.js";

// Gold placed on the real pre-image (issue 15, deliverables 2 and 3), on fixture repositories
// built with real git: the patch is made against one commit and applied to another whose file
// has moved, and `git apply -v` itself is the reference for every offset.

const filler = (name: string, indent = "") => [`${indent}def ${name}():`, `${indent}    return "${name}"`, ""];

const ORIGINAL = [
  "import os",
  "",
  "",
  "def helper(x):",
  "    return x + 1",
  "",
  "",
  ...filler("first"),
  "",
  ...filler("second"),
  "",
  ...filler("third"),
  "",
  "class Shape:",
  "    @property",
  "    def area(self):",
  "        return 0",
  "",
  ...filler("spacer_one", "    "),
  ...filler("spacer_two", "    "),
  "    def outer(self):",
  "        def inner():",
  "            return 1",
  "        return inner()",
  "",
  ...filler("spacer_three", "    "),
  ...filler("spacer_four", "    "),
  "    def last(self):",
  "        return 2",
  "",
  "",
  ...filler("fourth"),
  "",
  "CONSTANT = 1",
  "",
].join("\n");

/** The same file with a comment block after `second`: everything below it moves 3 lines down. */
const MOVED = ORIGINAL.replace('    return "second"\n', '    return "second"\n# one\n# two\n# three\n');

const EDITED = ORIGINAL.replace("    return x + 1\n", "    return x + 2\n")
  .replace("    @property\n", "    @functools.cached_property\n")
  .replace("            return 1\n", "            return 3\n")
  .replace("        return 2\n", "        return 2\n\n    def extra(self):\n        return 4\n")
  .replace("CONSTANT = 1\n", "CONSTANT = 2\n");

const folders: string[] = [];
let repo: string;
let patch: string;
let baseCommit: string;

/** `git apply -v --check` of `patch` at the repository's HEAD: git's own offsets per hunk (1-based hunk numbers). */
async function gitApplyOffsets(cwd: string, text: string): Promise<{ ok: boolean; offsets: Map<number, number> }> {
  const file = join(cwd, "..", `patch-${Math.random().toString(36).slice(2)}.diff`);
  await writeFile(file, text);
  const result = await execa("git", ["apply", "-v", "--check", file], { cwd, reject: false });
  const offsets = new Map<number, number>();
  for (const match of result.stderr.matchAll(/Hunk #(\d+) succeeded at \d+ \(offset (-?\d+) lines?\)/g))
    offsets.set(Number(match[1]), Number(match[2]));
  return { ok: result.exitCode === 0, offsets };
}

beforeAll(async () => {
  const root = await mkdtemp(join(tmpdir(), "loclab-preimage-"));
  folders.push(root);
  // The patch: ORIGINAL → EDITED, as git writes it.
  const source = join(root, "source");
  await commitFiles(source, { "shapes.py": ORIGINAL });
  await writeFile(join(source, "shapes.py"), EDITED);
  patch = fixtureGit(source, "diff");
  // The base commit the task names: the file has moved since the patch was made.
  repo = join(root, "repo");
  baseCommit = await commitFiles(repo, { "shapes.py": MOVED });
  fixtureGit(root, "clone", "-q", "--mirror", repo, join(root, "mirrors", "acme__shapes.git"));
});

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

describe("placing a patch on the pre-image (git apply's rules)", () => {
  it("finds every hunk where git apply does, with the same offsets", async () => {
    const placement = placeHunks(MOVED, parsePatch(patch)[0]?.hunks ?? []);
    if (!placement.applies) throw new Error(placement.reason);
    const git = await gitApplyOffsets(repo, patch);
    expect(git.ok).toBe(true);
    // git prints an offset only for the hunks that moved.
    const moved = new Map(
      placement.hunks.flatMap((hunk, index) => (hunk.offset !== 0 ? [[index + 1, hunk.offset] as const] : [])),
    );
    expect(moved).toEqual(git.offsets);
    expect(moved.size).toBeGreaterThan(0);
  });

  it("gives spans at the real lines: each removed span's lines are the patch's removed text", () => {
    const gold = goldAtPreImage(patch, { instanceId: "acme__shapes-1", preImage: () => MOVED });
    const headerGold = goldFromPatch(patch, { instanceId: "acme__shapes-1" });
    const lines = MOVED.split("\n");
    const removed =
      parsePatch(patch)[0]?.hunks.flatMap((hunk) =>
        hunk.lines.filter((line) => line.kind === "removed").map((line) => line.text),
      ) ?? [];
    const atSpans = gold.spans
      .filter((span) => span.kind === "removed")
      .flatMap((span) => lines.slice(span.startLine - 1, span.endLine));
    expect(atSpans).toEqual(removed);
    expect(gold.lines).toBe("pre-image");
    expect(gold.unplaced).toEqual([]);
    // The header numbers point 3 lines too high below the moved block.
    expect(gold.spans.map((span) => span.startLine - (span.offset ?? 0))).toEqual(
      headerGold.spans.map((span) => span.startLine),
    );
    expect(gold.spans.map((span) => span.offset)).toEqual(gold.spans.map((span) => (span.startLine > 20 ? 3 : 0)));
    expect(gold.spans.length).toBe(5);
  });

  it("searches one line down before one line up, as git does", async () => {
    // The hunk's context "x / y" appears twice, one line above and one line below where its header says.
    const base = ["a", "x", "y", "b", "c", "x", "y", "d", ""].join("\n");
    const hunkPatch = ["--- a/f.txt", "+++ b/f.txt", "@@ -3,2 +3,3 @@", " x", "+new", " y", ""].join("\n");
    const placement = placeHunks(base, parsePatch(hunkPatch)[0]?.hunks ?? []);
    const root = await mkdtemp(join(tmpdir(), "loclab-search-"));
    folders.push(root);
    await commitFiles(join(root, "r"), { "f.txt": base });
    const git = await gitApplyOffsets(join(root, "r"), hunkPatch);
    expect(git.ok).toBe(true);
    expect(placement).toEqual({ applies: true, hunks: [{ oldStart: 2, offset: -1 }] });
    expect(git.offsets).toEqual(new Map([[1, -1]]));
    // Move the second copy one line further: now the nearer one (below) wins.
    const base2 = ["a", "b", "x", "y", "c", "x", "y", ""].join("\n");
    const placement2 = placeHunks(
      base2,
      parsePatch(["--- a/f.txt", "+++ b/f.txt", "@@ -4,2 +4,3 @@", " x", "+new", " y", ""].join("\n"))[0]?.hunks ?? [],
    );
    expect(placement2).toEqual({ applies: true, hunks: [{ oldStart: 3, offset: -1 }] });
  });

  it("a hunk at line 1 must match at the top, one without trailing context at the end", async () => {
    const top = ["--- a/f.txt", "+++ b/f.txt", "@@ -1,2 +1,2 @@", "-a", "+A", " b", ""].join("\n");
    expect(placeHunks("a\nb\nc\n", parsePatch(top)[0]?.hunks ?? []).applies).toBe(true);
    // The same lines one line lower: git refuses rather than searching.
    const lower = placeHunks("z\na\nb\nc\n", parsePatch(top)[0]?.hunks ?? []);
    expect(lower.applies).toBe(false);
    const root = await mkdtemp(join(tmpdir(), "loclab-top-"));
    folders.push(root);
    await commitFiles(join(root, "r"), { "f.txt": "z\na\nb\nc\n" });
    expect((await gitApplyOffsets(join(root, "r"), top)).ok).toBe(false);
    const end = ["--- a/f.txt", "+++ b/f.txt", "@@ -2,2 +2,2 @@", " b", "-c", "+C", ""].join("\n");
    expect(placeHunks("a\nb\nc\n", parsePatch(end)[0]?.hunks ?? []).applies).toBe(true);
    expect(placeHunks("a\nb\nc\nd\n", parsePatch(end)[0]?.hunks ?? []).applies).toBe(false);
  });

  it("a file whose hunks match nowhere keeps its header numbers and says why", () => {
    const gold = goldAtPreImage(patch, { instanceId: "acme__shapes-1", preImage: () => "something else entirely\n" });
    expect(gold.unplaced).toEqual([{ path: "shapes.py", reason: expect.stringContaining("hunk #1") }]);
    expect(gold.spans).toEqual(goldFromPatch(patch, { instanceId: "acme__shapes-1" }).spans);
    const missing = goldAtPreImage(patch, { instanceId: "acme__shapes-1", preImage: () => undefined });
    expect(missing.unplaced).toEqual([{ path: "shapes.py", reason: "the file is not in the tree at base commit" }]);
  });
});

describe("exact symbols from the pre-image (tree-sitter)", () => {
  it("names decorated, nested and appended-to definitions, and the module-level edit", async () => {
    const { parser } = await loadPythonImportParser();
    const gold = goldAtPreImage(patch, {
      instanceId: "acme__shapes-1",
      preImage: () => MOVED,
      definitions: (_path, text) => pythonDefinitions(text, parser),
    });
    // @property → cached_property: the decorator is part of `area`; `return 1` is inside the nested
    // `inner`; `extra` appended after `last` belongs to the class; CONSTANT is module level.
    expect(gold.exact?.functions).toEqual([
      "shapes.py:helper",
      "shapes.py:Shape.area",
      "shapes.py:Shape.outer.inner",
      "shapes.py:Shape",
    ]);
    expect(gold.exact?.modules).toEqual(["shapes.py:helper", "shapes.py:Shape"]);
    const constantLine = MOVED.split("\n").indexOf("CONSTANT = 1") + 1;
    expect(gold.exact?.moduleLevel).toEqual([{ path: "shapes.py", line: constantLine, hunk: expect.any(Number) }]);
    // The hunk headers guess otherwise: git names the last definition line above each hunk (`third`, a sibling, and `Shape`), never `area` or `inner`.
    expect(goldFromPatch(patch, { instanceId: "x" }).symbols.map((symbol) => symbol.name)).toEqual(["third", "Shape"]);
  });

  it("insertions: appended to a function's body, a function appended to the module, a method between two methods", async () => {
    const { parser } = await loadPythonImportParser();
    const base =
      "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n\n\ndef h():\n    return 3\n";
    const exact = (patchText: string) =>
      goldAtPreImage(patchText, {
        instanceId: "x",
        preImage: () => base,
        definitions: (_path, text) => pythonDefinitions(text, parser),
      }).exact;
    // A statement appended to h's body, after its last line: h's.
    expect(
      exact(["--- a/m.py", "+++ b/m.py", "@@ -9,2 +9,3 @@", " def h():", "     return 3", "+    # more", ""].join("\n"))
        ?.functions,
    ).toEqual(["m.py:h"]);
    // A function appended at the end of the module: nobody's (module level).
    const appended = exact(
      [
        "--- a/m.py",
        "+++ b/m.py",
        "@@ -9,2 +9,6 @@",
        " def h():",
        "     return 3",
        "+",
        "+",
        "+def k():",
        "+    return 4",
        "",
      ].join("\n"),
    );
    expect(appended?.functions).toEqual([]);
    expect(appended?.moduleLevel).toEqual([{ path: "m.py", line: 10, hunk: 0 }]);
    // A method inserted between f and g: the class's (it holds both neighbouring lines).
    expect(
      exact(
        [
          "--- a/m.py",
          "+++ b/m.py",
          "@@ -3,3 +3,6 @@",
          "         return 1",
          " ",
          "+    def e(self):",
          "+        return 0",
          "+",
          "     def g(self):",
          "",
        ].join("\n"),
      )?.functions,
    ).toEqual(["m.py:A"]);
  });

  it("reports definitions with decorators, nesting and line ranges", async () => {
    const { parser } = await loadPythonImportParser();
    const definitions = pythonDefinitions(MOVED, parser);
    const lineOf = (text: string) => MOVED.split("\n").indexOf(text) + 1;
    const rows = definitions.map((d) => [d.qualifiedName, d.kind, d.startLine, d.endLine, d.indent]);
    expect(rows.filter((row) => !String(row[0]).match(/first|second|third|fourth|spacer/))).toEqual([
      ["helper", "function", lineOf("def helper(x):"), lineOf("    return x + 1"), 0],
      ["Shape", "class", lineOf("class Shape:"), lineOf("        return 2"), 0],
      ["Shape.area", "function", lineOf("    @property"), lineOf("        return 0"), 4],
      ["Shape.outer", "function", lineOf("    def outer(self):"), lineOf("        return inner()"), 4],
      ["Shape.outer.inner", "function", lineOf("        def inner():"), lineOf("            return 1"), 8],
      ["Shape.last", "function", lineOf("    def last(self):"), lineOf("        return 2"), 4],
    ]);
  });
});

describe("gold at base commit from a mirror", () => {
  it("reads the pre-images from the bare mirror and places the patch", async () => {
    const mirrors = join(folders[0] as string, "mirrors");
    const instance = { instance_id: "acme__shapes-1", repo: "acme/shapes", base_commit: baseCommit, patch };
    const { golds, failures, unreadable } = await goldAtBaseCommit({
      instances: [instance, { ...instance, instance_id: "acme__shapes-2", base_commit: "0".repeat(40) }],
      mirrors,
    });
    expect(failures).toEqual([]);
    expect(unreadable).toEqual([
      { instanceId: "acme__shapes-2", message: expect.stringContaining("is not in the mirror") },
    ]);
    // The instance that cannot be read keeps its patch-only gold, in order.
    expect(golds.map((gold) => [gold.instanceId, gold.lines])).toEqual([
      ["acme__shapes-1", "pre-image"],
      ["acme__shapes-2", "patch-header"],
    ]);
    expect(golds[1]?.spans).toEqual(goldFromPatch(patch, { instanceId: "acme__shapes-2" }).spans);
    expect(golds[0]?.exact?.functions).toEqual([
      "shapes.py:helper",
      "shapes.py:Shape.area",
      "shapes.py:Shape.outer.inner",
      "shapes.py:Shape",
    ]);
    expect(golds[0]?.hunks.map((hunk) => hunk.offset)).toEqual(placeHunksOffsets());
    const blobs = await readObjects(
      { path: join(mirrors, "acme__shapes.git"), gitDir: join(mirrors, "acme__shapes.git") },
      [`${baseCommit}:shapes.py`, `${baseCommit}:nope.py`],
    );
    expect(blobs.get(`${baseCommit}:shapes.py`)?.toString("utf8")).toBe(MOVED);
    expect(blobs.get(`${baseCommit}:nope.py`)).toBeUndefined();
  });
});

function placeHunksOffsets(): number[] {
  const placement = placeHunks(MOVED, parsePatch(patch)[0]?.hunks ?? []);
  return placement.applies ? placement.hunks.map((hunk) => hunk.offset) : [];
}

describe("loclab gold and score with --repos", () => {
  it("gold --repos --json gives the real lines with offsets and the exact symbols; without, it says the lines are the header's", async () => {
    const root = folders[0] as string;
    const benchmark = join(root, "shapes.jsonl");
    await writeFile(
      benchmark,
      `${JSON.stringify({ instance_id: "acme__shapes-1", repo: "acme/shapes", base_commit: baseCommit, patch, problem_statement: "area is cached wrongly" })}\n`,
    );
    const located = await loclab("gold", "--benchmark", benchmark, "--repos", join(root, "mirrors"), "--json");
    expect(located.exitCode, located.stderr).toBe(0);
    const record = JSON.parse(located.stdout);
    expect(record).toMatchObject({
      lines: "pre-image",
      symbols: ["shapes.py:helper", "shapes.py:Shape.area", "shapes.py:Shape.outer.inner", "shapes.py:Shape"],
      modules: ["shapes.py:helper", "shapes.py:Shape"],
    });
    expect(record.spans.map((span: { offset: number }) => span.offset)).toEqual([0, 3, 3, 3, 3]);
    expect(located.stderr).toContain("1 instance(s) with 4 span(s) moved (3 to 3 lines)");
    // An instance that cannot be read at base commit still gets its patch-only gold, said so; exit 1.
    const withMissing = join(root, "shapes-missing.jsonl");
    await writeFile(
      withMissing,
      [
        JSON.stringify({
          instance_id: "acme__shapes-1",
          repo: "acme/shapes",
          base_commit: baseCommit,
          patch,
          problem_statement: "x",
        }),
        JSON.stringify({
          instance_id: "acme__shapes-9",
          repo: "acme/shapes",
          base_commit: "9".repeat(40),
          patch,
          problem_statement: "x",
        }),
      ].join("\n") + "\n",
    );
    const partial = await loclab("gold", "--benchmark", withMissing, "--repos", join(root, "mirrors"), "--json");
    expect(partial.exitCode).toBe(1);
    expect(
      partial.stdout
        .trim()
        .split("\n")
        .map((line) => [JSON.parse(line).instanceId, JSON.parse(line).lines]),
    ).toEqual([
      ["acme__shapes-1", "pre-image"],
      ["acme__shapes-9", "patch-header"],
    ]);
    expect(partial.stderr).toContain("no checkout (patch-only gold printed): acme__shapes-9");
    const plain = await loclab("gold", "--benchmark", benchmark, "--json");
    expect(JSON.parse(plain.stdout).lines).toBe("patch-header");
    expect(plain.stderr).toContain("spans at the patch's @@ numbers (no checkout");

    // Scoring against that gold: the function level exists (exact gold), spans are the real lines.
    const predictions = join(root, "predictions.jsonl");
    await writeFile(
      predictions,
      `${JSON.stringify({ schemaVersion: 1, instanceId: "acme__shapes-1", files: ["shapes.py"], functions: ["shapes.py:Shape.area"], locations: [{ path: "shapes.py", startLine: MOVED.split("\n").indexOf("    @property") + 1, endLine: MOVED.split("\n").indexOf("    @property") + 1 }] })}\n`,
    );
    const scored = await loclab(
      "score",
      "--benchmark",
      benchmark,
      "--predictions",
      predictions,
      "--format",
      "loclab",
      "--repos",
      join(root, "mirrors"),
      "--json",
    );
    expect(scored.exitCode, scored.stderr).toBe(0);
    const metrics = JSON.parse(scored.stdout).metrics;
    expect(metrics["file.acc@1"]).toBe(1);
    expect(metrics["function.hit@1"]).toBe(1);
    expect(scored.stderr).toContain("placed on the files at base commit");
    const unscored = await loclab(
      "score",
      "--benchmark",
      benchmark,
      "--predictions",
      predictions,
      "--format",
      "loclab",
      "--json",
    );
    // No checkout, no function gold for a JSONL benchmark: the level is not scored.
    expect(JSON.parse(unscored.stdout).metrics["function.hit@1"]).toBeUndefined();
  });
});
