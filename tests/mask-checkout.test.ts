import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import { loclab } from "./helpers.js";

// `loclab mask --repos` (issue 15, deliverable 4) on a fixture repository made with real git: the
// base commit's full file list decides what is a repository file, hints are masked with the same
// placeholders, and the masked file carries no original text.

let root: string;
let benchmark: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "loclab-maskrepo-"));
  const source = join(root, "source");
  const base = await commitFiles(source, {
    "shop/__init__.py": "",
    "shop/cart.py": "def total():\n    return 1\n",
    "shop/pricing.py": "RATE = 2\n",
  });
  await writeFile(join(source, "shop/cart.py"), "def total():\n    return 2\n");
  const patch = fixtureGit(source, "diff");
  fixtureGit(root, "clone", "-q", "--bare", source, join(root, "mirrors", "acme__shop.git"));
  const row = {
    instance_id: "acme__shop-1",
    repo: "acme/shop",
    base_commit: base,
    patch,
    test_patch: "",
    // shop/pricing.py exists at base commit but no patch touches it; shop/legacy/rates.py does
    // not exist at all; numpy's file is another project's.
    problem_statement:
      "total() in shop/cart.py is wrong; shop/pricing.py sets RATE; see shop/legacy/rates.py and numpy/core/fromnumeric.py. Also `pricing.py`.",
    hints_text: "The fix is in shop/cart.py (module shop.cart).",
  };
  benchmark = join(root, "bench.jsonl");
  await writeFile(benchmark, `${JSON.stringify(row)}\n`);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("loclab mask with a checkout", () => {
  it("masks files that exist at base commit, leaves the rest alone and counts it; hints share the placeholders", async () => {
    const out = join(root, "masked.jsonl");
    const result = await loclab(
      "mask",
      "--benchmark",
      benchmark,
      "--repos",
      join(root, "mirrors"),
      "--include-hints",
      "--out",
      out,
      "--json",
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const [masked] = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(masked.problem_statement).toBe(
      "total() in <path-1> is wrong; <path-2> sets RATE; see shop/legacy/rates.py and numpy/core/fromnumeric.py. Also `<path-2>`.",
    );
    expect(masked.hints_text).toBe("The fix is in <path-1> (module <path-1>).");
    expect(Object.keys(masked)).not.toContain("original_problem_statement");
    expect(Object.keys(masked)).not.toContain("mask");
    const [report] = readFileSync(join(root, "masked.report.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(report.original_problem_statement).toContain("shop/legacy/rates.py");
    expect(report.original_hints_text).toBe("The fix is in shop/cart.py (module shop.cart).");
    expect(report.mask.knownFiles).toBe("base-commit");
    expect(report.mask.placeholders).toEqual({ "<path-1>": "shop/cart.py", "<path-2>": "shop/pricing.py" });
    expect(report.mask.leftAlone.map((left: { text: string }) => left.text)).toEqual([
      "shop/legacy/rates.py",
      "numpy/core/fromnumeric.py",
    ]);
    expect(JSON.parse(result.stdout)).toMatchObject({ knownFiles: "base-commit", leftAlone: 2, includeHints: true });
  });

  it("without a checkout the patches' files and their package root decide: a name absent at base commit is masked, a non-gold basename missed", async () => {
    const out = join(root, "masked-patches.jsonl");
    expect((await loclab("mask", "--benchmark", benchmark, "--out", out)).exitCode).toBe(0);
    const [masked] = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    // shop/legacy/rates.py is inferred under the package root `shop` although it does not exist;
    // `pricing.py` alone is not known; hints are not masked unless asked.
    expect(masked.problem_statement).toBe(
      "total() in <path-1> is wrong; <path-2> sets RATE; see <path-3> and numpy/core/fromnumeric.py. Also `pricing.py`.",
    );
    expect(masked.hints_text).toBe("The fix is in shop/cart.py (module shop.cart).");
  });

  it("names the instance when its repository has no mirror, and writes nothing", async () => {
    const out = join(root, "nothing.jsonl");
    const result = await loclab("mask", "--benchmark", benchmark, "--repos", join(root, "elsewhere"), "--out", out);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("acme__shop-1: no mirror of acme/shop");
    expect(result.stderr).toContain("nothing was written");
  });
});
