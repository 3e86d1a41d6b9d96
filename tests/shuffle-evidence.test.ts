import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { loadBenchmark } from "@loclab/datasets";
import { goldFromPatch } from "@loclab/gold";
import type { Instance, Prediction } from "@loclab/schemas";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  mapGold,
  mapIssueText,
  mapPath,
  mapPredictions,
  parseShuffleMapping,
  SHUFFLE_KEEP_NAMES,
  unmapGold,
  unmapIssueText,
  unmapPath,
  unmapPredictions,
  type ShuffleMapping,
} from "@loclab/controls";
import { shuffleRepository, type ShuffleReport } from "@loclab/tools";
import { pythonCensus, SYSTEM_PYTHON, temporaryFolder, treeCensus, treeDigest } from "./shuffle/tree-helpers.js";

// Evidence for repository shuffling (docs/definitions.md §4) on two real codebases, installed from
// Debian (`apt-get install -y --no-install-recommends python3-requests python3-django`):
// each package folder is copied into a fresh checkout (`checkout/requests/…`, the layout of
// the project's repository) and shuffled. Figures are printed for the record.

const DIST_PACKAGES = "/usr/lib/python3/dist-packages";
const CODEBASES = [
  { name: "requests", debian: "python3-requests", repo: "psf/requests", minResolvable: 200 },
  { name: "django", debian: "python3-django", repo: "django/django", minResolvable: 6000 },
] as const;

/** A `sys.meta_path` finder that fails any import of the original top-level package. */
const blockOriginal = (name: string) => `
import sys
class BlockOriginal:
    def find_spec(self, fullname, path=None, target=None):
        if fullname == ${JSON.stringify(name)} or fullname.startswith(${JSON.stringify(`${name}.`)}):
            raise ImportError("the original package was imported: " + fullname)
sys.meta_path.insert(0, BlockOriginal())
`;

for (const codebase of CODEBASES) {
  const installed = existsSync(join(DIST_PACKAGES, codebase.name, "__init__.py")) && existsSync(SYSTEM_PYTHON);
  if (!installed) {
    describe(`shuffling ${codebase.name}`, () => {
      it.skip(`skipped: Debian package ${codebase.debian} is not installed (apt-get install -y --no-install-recommends ${codebase.debian})`, () => {});
    });
    continue;
  }

  describe(`shuffling ${codebase.name} (Debian ${codebase.debian})`, () => {
    let root: string;
    let cleanup: () => Promise<void>;
    let checkout: string;
    const out = (n: number) => join(root, `out${n}`);
    const reports: ShuffleReport[] = [];
    let mapping: ShuffleMapping;
    let instances: Instance[] = [];

    beforeAll(async () => {
      ({ path: root, cleanup } = await temporaryFolder(`shuffle-${codebase.name}`));
      checkout = join(root, "checkout");
      await execa("mkdir", ["-p", checkout]);
      await execa("cp", ["-a", join(DIST_PACKAGES, codebase.name), checkout]);
      for (const [n, seed] of [
        [1, 1],
        [2, 1],
        [3, 2],
      ] as const) {
        reports.push(
          await shuffleRepository({ repo: checkout, out: out(n), mapping: join(root, `mapping${n}.json`), seed }),
        );
      }
      mapping = parseShuffleMapping(JSON.parse(await readFile(join(root, "mapping1.json"), "utf8")));
      const benchmarks = await Promise.all(["lite", "verified"].map((name) => loadBenchmark(name)));
      const seen = new Set<string>();
      instances = benchmarks
        .flatMap((benchmark) => benchmark.instances)
        .filter((row) => row.repo === codebase.repo && !seen.has(row.instance_id) && seen.add(row.instance_id));
    });
    afterAll(async () => cleanup?.());

    it("same seed, same tree (file list and contents); another seed, another tree", async () => {
      const [a, b, c] = await Promise.all([1, 2, 3].map((n) => treeDigest(out(n))));
      expect(b).toEqual(a);
      expect([...(c as Map<string, string>).keys()].sort()).not.toEqual([...(a as Map<string, string>).keys()].sort());
      const report = reports[0] as ShuffleReport;
      console.log(
        `${codebase.name} shuffle report:`,
        JSON.stringify({ ...report, skipped: report.skipped.filter((entry) => entry.reason !== "skipped-directory") }),
      );
    });

    it("no original folder or file name survives, but the keep-list's", async () => {
      const originals = new Set(
        [...Object.keys(mapping.files), ...Object.keys(mapping.directories)]
          .map((path) => basename(path))
          .filter((name) => !SHUFFLE_KEEP_NAMES.includes(name) && !name.startsWith(".")),
      );
      const survivors = [...(await treeDigest(out(1))).keys()]
        .map((path) => basename(path))
        .filter((name) => originals.has(name));
      expect(survivors).toEqual([]);
      expect(originals.size).toBeGreaterThan(10);
    });

    it("compiles: /usr/bin/python3 -m compileall -q passes on the shuffled copy", async () => {
      const compiled = await execa(SYSTEM_PYTHON, ["-m", "compileall", "-q", "-j", "0", out(3)], { reject: false });
      expect(compiled.exitCode, compiled.stdout.slice(0, 2000)).toBe(0);
    });

    it("keeps every resolvable in-repository import resolvable (two independent static censuses, before = after)", async () => {
      const [before, after] = await Promise.all([treeCensus(checkout), treeCensus(out(1))]);
      const [pythonBefore, pythonAfter] = await Promise.all([pythonCensus(checkout), pythonCensus(out(1))]);
      console.log(`${codebase.name} import census (tree-sitter):`, JSON.stringify({ before, after }));
      console.log(
        `${codebase.name} import census (CPython ast):`,
        JSON.stringify({ before: pythonBefore, after: pythonAfter }),
      );
      expect(after).toEqual(before);
      expect(pythonAfter).toEqual(pythonBefore);
      // The two censuses (tree-sitter + TypeScript, CPython ast + Python) agree.
      expect(pythonBefore.resolvable).toBe(before.resolvable);
      expect(before.resolvable).toBeGreaterThan(codebase.minResolvable);
      expect(reports[0]?.imports.inRepository).toBe(before.modulesResolved);
    });

    it("maps every path, the benchmark's gold and predictions through the mapping and back exactly", () => {
      for (const path of [...Object.keys(mapping.files), ...Object.keys(mapping.directories)]) {
        expect(unmapPath(mapping, mapPath(mapping, path) as string)).toBe(path);
      }
      let goldFilesInCheckout = 0;
      let goldFiles = 0;
      for (const row of instances) {
        const gold = goldFromPatch(row.patch, { instanceId: row.instance_id });
        const mapped = mapGold(mapping, gold);
        expect(unmapGold(mapping, mapped.gold).gold).toEqual(gold);
        goldFiles += gold.files.length;
        goldFilesInCheckout += gold.files.filter((file) => mapPath(mapping, file) !== undefined).length;
        const known = gold.files.filter((file) => mapPath(mapping, file) !== undefined);
        const prediction: Prediction = {
          instanceId: row.instance_id,
          files: known,
          locations: gold.spans
            .filter((span) => known.includes(span.path))
            .map((span) => ({
              path: span.path,
              startLine: span.startLine,
              endLine: span.endLine,
              role: "edit" as const,
            })),
          functions: gold.symbols
            .filter((symbol) => known.includes(symbol.path))
            .map((symbol) => `${symbol.path}:${symbol.name}`),
        };
        const shuffled = mapPredictions(mapping, [prediction]);
        expect(shuffled.unmapped).toEqual([]);
        expect(unmapPredictions(mapping, shuffled.predictions).predictions).toEqual([prediction]);
      }
      console.log(
        `${codebase.name} benchmark gold: ${instances.length} instances, ${goldFilesInCheckout} of ${goldFiles} gold files present in the Debian checkout`,
      );
      expect(instances.length).toBeGreaterThan(0);
    });

    it("maps the benchmark's issue texts consistently and back", () => {
      let roundTrips = 0;
      let rewritten = 0;
      const leftOriginalPaths: string[] = [];
      for (const row of instances) {
        const mapped = mapIssueText(mapping, row.problem_statement);
        rewritten += mapped.report.replacements.length;
        for (const replacement of mapped.report.replacements) {
          const target = mapping.files[replacement.target] ?? mapping.directories[replacement.target];
          expect(target, replacement.target).toBeDefined();
        }
        if (unmapIssueText(mapping, mapped.text).text === row.problem_statement) roundTrips += 1;
        for (const path of Object.keys(mapping.files))
          if (path.includes("/") && mapped.text.includes(path)) leftOriginalPaths.push(path);
      }
      console.log(
        `${codebase.name} issue texts: ${instances.length} issues, ${rewritten} mentions rewritten, ${roundTrips} round-trip exactly, full paths left: ${leftOriginalPaths.length}`,
      );
      expect(roundTrips).toBe(instances.length);
      expect(leftOriginalPaths).toEqual([]);
    });

    if (codebase.name === "requests") {
      it("imports and works: the shuffled requests package (original blocked), with its API reachable", async () => {
        const top = basename(mapping.directories.requests as string);
        const adapters = basename(mapping.files["requests/adapters.py"] as string, ".py");
        const script = `${blockOriginal("requests")}
sys.path.insert(0, ${JSON.stringify(out(1))})
import ${top} as r
import ${top}.${adapters}
assert r.Session and r.get and r.${adapters}.HTTPAdapter
s = r.Session()
assert isinstance(s.get_adapter("https://example.org"), r.${adapters}.HTTPAdapter)
print(r.__version__)`;
        const { stdout } = await execa(SYSTEM_PYTHON, ["-c", script], { cwd: root });
        expect(stdout).toMatch(/^2\.\d+\.\d+$/);
      });
    }

    if (codebase.name === "django") {
      it("imports: django and its main subpackages under their shuffled names (original blocked)", async () => {
        const modules = [
          "django",
          "django/db/models",
          "django/forms",
          "django/template",
          "django/contrib/admin",
          "django/core/management",
          "django/urls",
        ];
        const names = modules.map((path) => (mapping.directories[path] as string).split("/").join("."));
        const script = `${blockOriginal("django")}
sys.path.insert(0, ${JSON.stringify(out(1))})
import importlib
for name in ${JSON.stringify(names)}:
    importlib.import_module(name)
print(importlib.import_module(${JSON.stringify(names[0])}).get_version())`;
        const { stdout } = await execa(SYSTEM_PYTHON, ["-c", script], { cwd: root });
        expect(stdout).toMatch(/^3\.2\.\d+$/);
      });

      it("with rewriteDottedStrings: settings.configure() and django.setup() run on the shuffled tree", async () => {
        const report = await shuffleRepository({
          repo: checkout,
          out: out(4),
          mapping: join(root, "mapping4.json"),
          seed: 1,
          rewriteDottedStrings: true,
        });
        expect(report.unresolvedDynamicReferences).toBe(0);
        const m = parseShuffleMapping(JSON.parse(await readFile(join(root, "mapping4.json"), "utf8")));
        const dotted = (path: string) =>
          (m.directories[path] ?? (m.files[`${path}.py`] as string).replace(/\.py$/, "")).split("/").join(".");
        const apps = ["django/contrib/contenttypes", "django/contrib/auth", "django/contrib/sessions"].map(dotted);
        const script = `${blockOriginal("django")}
sys.path.insert(0, ${JSON.stringify(out(4))})
import importlib
django = importlib.import_module(${JSON.stringify(dotted("django"))})
settings = importlib.import_module(${JSON.stringify(dotted("django/conf"))}).settings
settings.configure(INSTALLED_APPS=${JSON.stringify(apps)}, DATABASES={"default": {"ENGINE": ${JSON.stringify(dotted("django/db/backends/sqlite3"))}, "NAME": ":memory:"}})
django.setup()
importlib.import_module(${JSON.stringify(dotted("django/test"))})
registry = importlib.import_module(${JSON.stringify(dotted("django/apps"))}).apps
print(len(registry.get_app_configs()), len(registry.get_models()))`;
        const { stdout } = await execa(SYSTEM_PYTHON, ["-c", script], { cwd: root });
        // Three apps load; their models do not: Django finds them by the module name `models`,
        // a file-name convention that shuffling renames (a known runtime limit of the control).
        expect(stdout).toBe("3 0");
      });
    }
  });
}
