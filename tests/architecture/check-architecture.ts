import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, resolve } from "node:path";
import ts from "typescript";

/**
 * The architecture rules of the repository, checked over package.json files and the imports of
 * every `src` file (docs/architecture.md; issue 11). The checker is a pure function of a `RepoModel`, so a
 * test can feed it a model with a planted violation and see it caught; `readRepoModel` builds
 * the model of the real tree.
 */

export interface SourceFile {
  /** Path relative to the package folder, e.g. `src/aggregate-runs.ts`. */
  path: string;
  text: string;
}

export interface PackageModel {
  /** `@loclab/metrics`. */
  name: string;
  /** Folder name under packages/, e.g. `metrics`. */
  dir: string;
  dependencies: string[];
  devDependencies: string[];
  src: SourceFile[];
  test: SourceFile[];
}

export interface RepoModel {
  packages: PackageModel[];
}

export interface Violation {
  rule: string;
  where: string;
  detail: string;
}

/**
 * Which packages must stay pure (no file system, no processes, no clock, no global
 * randomness): metrics, statistics, controls, FGL's weights (fgl-math) and SWE-bench grading. The controls'
 * file-system side (walking a checkout, writing the shuffled copy) lives in the tools package.
 */
export function isPureFile(pkg: PackageModel, _file: SourceFile): boolean {
  return (
    pkg.dir === "metrics" ||
    pkg.dir === "statistics" ||
    pkg.dir === "controls" ||
    pkg.dir === "fgl-math" ||
    pkg.dir === "grading"
  );
}

/**
 * The bottom of the graph: the log contract and the one HTTP client to model servers. Every
 * other package may stand on them, so they stand on no loclab package.
 */
const IMPORTS_NO_LOCLAB_PACKAGE = new Set(["schemas", "openai-http"]);
/** Packages of domain logic that charts (rendering only) must not import. */
const CHARTS_MAY_IMPORT = new Set(["@loclab/schemas"]);
/** What analysis (it reads logs) must never import: the things that make the logs. */
const ANALYSIS_MUST_NOT_IMPORT = new Set(["@loclab/agent", "@loclab/runner", "@loclab/cli"]);

const IMPURE_MODULES = new Set([
  "fs",
  "node:fs",
  "fs/promises",
  "node:fs/promises",
  "child_process",
  "node:child_process",
  "execa",
  "os",
  "node:os",
  "worker_threads",
  "node:worker_threads",
  "net",
  "node:net",
  "http",
  "node:http",
]);
const IMPURE_CALLS: { pattern: RegExp; what: string }[] = [
  { pattern: /\bMath\.random\s*\(/, what: "Math.random (randomness must come in as a seed or an rng)" },
  { pattern: /\bDate\.now\s*\(/, what: "Date.now (the clock)" },
  { pattern: /\bnew Date\s*\(\s*\)/, what: "new Date() (the clock)" },
  { pattern: /\bperformance\.now\s*\(/, what: "performance.now (the clock)" },
  { pattern: /\bprocess\.hrtime\b/, what: "process.hrtime (the clock)" },
];

/** The module specifiers a file imports or re-exports (static, dynamic and type-only alike). */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** Source text without comments and string contents, so a doc comment that names `Math.random` is not a call. */
function codeOnly(text: string): string {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
  let out = "";
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.StringLiteral || kind === ts.SyntaxKind.NoSubstitutionTemplateLiteral) out += '""';
    else out += scanner.getTokenText();
    out += " ";
  }
  return out.replace(/\s+/g, " ").replace(/ \. /g, ".").replace(/ \(/g, "(");
}

/** The package a bare specifier names (`@loclab/metrics/x` → `@loclab/metrics`). */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
}

/** Resolves a relative import of `from` to a file of the same package (`.js` → `.ts`, folder → index.ts). */
function resolveRelative(files: ReadonlySet<string>, from: string, specifier: string): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    `${base}.ts`,
    `${base}/index.ts`,
  ];
  return candidates.find((candidate) => files.has(candidate));
}

/** Every elementary cycle found by a depth-first search, each as the list of its nodes, once. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join("\u0000");
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push([...cycle, next]);
        }
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** All rule violations of a repository model; an empty list is a pass. */
export function checkArchitecture(repo: RepoModel): Violation[] {
  const violations: Violation[] = [];
  const names = new Set(repo.packages.map((pkg) => pkg.name));
  const add = (rule: string, where: string, detail: string) => violations.push({ rule, where, detail });

  // Packages: declared dependencies form no cycle.
  const packageGraph = new Map(
    repo.packages.map((pkg) => [pkg.name, pkg.dependencies.filter((dep) => names.has(dep))]),
  );
  for (const cycle of findCycles(packageGraph)) add("no package cycles", cycle[0] as string, cycle.join(" → "));

  for (const pkg of repo.packages) {
    const where = (file: SourceFile) => `packages/${pkg.dir}/${file.path}`;
    const srcPaths = new Set(pkg.src.map((file) => file.path));
    const fileGraph = new Map<string, string[]>();
    const declared = new Set(pkg.dependencies);
    const declaredForTests = new Set([...pkg.dependencies, ...pkg.devDependencies]);
    if (pkg.dependencies.includes("@loclab/cli") || pkg.devDependencies.includes("@loclab/cli")) {
      if (pkg.name !== "@loclab/cli")
        add("nothing imports cli", `packages/${pkg.dir}/package.json`, `${pkg.name} depends on @loclab/cli`);
    }
    if (pkg.dir === "agent" && [...pkg.dependencies, ...pkg.devDependencies].includes("@loclab/analysis")) {
      add(
        "agent does not depend on analysis",
        "packages/agent/package.json",
        "the agent writes logs; analysis reads them (the log contract lives in @loclab/schemas)",
      );
    }

    for (const file of pkg.src) {
      const edges: string[] = [];
      for (const specifier of importsOf(file.text)) {
        if (specifier.startsWith(".")) {
          const target = resolveRelative(srcPaths, file.path, specifier);
          if (target === undefined) add("imports resolve", where(file), `${specifier} is no file of ${pkg.name}`);
          else edges.push(target);
          continue;
        }
        const target = packageOf(specifier);
        if (target.startsWith("@loclab/")) {
          if (target === pkg.name) add("no self import by name", where(file), specifier);
          if (specifier !== target) add("other packages only through their public entry", where(file), specifier);
          if (!declared.has(target))
            add(
              "imported packages are declared dependencies",
              where(file),
              `${target} is not in ${pkg.name}'s dependencies`,
            );
          if (target === "@loclab/cli" && pkg.name !== "@loclab/cli")
            add("nothing imports cli", where(file), specifier);
          if (pkg.dir === "analysis" && ANALYSIS_MUST_NOT_IMPORT.has(target))
            add("analysis reads logs; it does not import what writes them", where(file), specifier);
          if (IMPORTS_NO_LOCLAB_PACKAGE.has(pkg.dir) && target !== pkg.name)
            add("schemas and openai-http import no loclab package", where(file), specifier);
          if (pkg.dir === "charts" && !CHARTS_MAY_IMPORT.has(target))
            add("charts import no domain package but schemas", where(file), specifier);
        }
        if (isPureFile(pkg, file) && IMPURE_MODULES.has(specifier))
          add("pure packages do no I/O", where(file), `imports ${specifier}`);
      }
      if (isPureFile(pkg, file)) {
        const code = codeOnly(file.text);
        for (const { pattern, what } of IMPURE_CALLS)
          if (pattern.test(code)) add("pure packages do no I/O", where(file), what);
      }
      fileGraph.set(file.path, edges);
    }
    for (const cycle of findCycles(fileGraph)) add("no file cycles", `packages/${pkg.dir}`, cycle.join(" → "));

    for (const file of pkg.test) {
      for (const specifier of importsOf(file.text)) {
        const target = packageOf(specifier);
        if (!target.startsWith("@loclab/") || target === pkg.name) continue;
        if (!declaredForTests.has(target))
          add(
            "a package's tests import only what the package declares (cross-package tests live in tests/)",
            where(file),
            `${target}`,
          );
        if (target === "@loclab/cli") add("nothing imports cli", where(file), specifier);
      }
    }
  }
  return violations;
}

function listTs(dir: string, root: string): SourceFile[] {
  if (!existsSync(dir)) return [];
  const out: SourceFile[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "dist" && entry.name !== "fixtures")
        out.push(...listTs(full, root));
    } else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push({ path: relative(root, full).split("\\").join("/"), text: readFileSync(full, "utf8") });
    } else if (entry.name.endsWith(".json")) {
      // A data file a module imports (`with { type: "json" }`): a node without imports of its own.
      out.push({ path: relative(root, full).split("\\").join("/"), text: "" });
    }
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** The model of the real repository: every `packages/<dir>/package.json` with its src and test files. */
export function readRepoModel(repoRoot: string): RepoModel {
  const packagesDir = join(repoRoot, "packages");
  const packages: PackageModel[] = [];
  for (const dir of readdirSync(packagesDir).sort()) {
    const manifestPath = join(packagesDir, dir, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      name: string;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const root = join(packagesDir, dir);
    packages.push({
      name: manifest.name,
      dir,
      dependencies: Object.keys(manifest.dependencies ?? {}),
      devDependencies: Object.keys(manifest.devDependencies ?? {}),
      src: listTs(join(root, "src"), root),
      test: listTs(join(root, "test"), root),
    });
  }
  return { packages };
}

/** The repository root, from this file's location (tests/architecture/). */
export const REPO_ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..", "..");
