import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { comparePaths } from "./file-listing.js";
import type { FileRead } from "./file-read.js";
import {
  BATCHES_IN_FLIGHT_PER_THREAD,
  defaultImportParseThreads,
  type ImportParsePool,
  ImportParseThreadLost,
  importParserFingerprint,
  importParseThreadsAvailable,
  loadPythonImportParser,
  MODULE_SUFFIXES,
  type ParsedSource,
  type PythonImport,
  type PythonImportParser,
  type PythonImportsResult,
  PythonModuleIndex,
  pythonImports,
  sharedImportParsePool,
} from "@loclab/python";
import { checkThreadCount } from "@loclab/threads";

/**
 * The complete graph is parsed on worker threads beside the calling thread when at least this
 * many files are left to parse: a thread costs about 60 ms of a core to start and load the
 * grammar (measured on this machine), which a few hundred files of django's size pay back.
 */
export const MIN_THREADED_PARSE_FILES = 256;
/** Files a worker thread is handed at a time: about 10 ms of parsing, so the work stays balanced to the end. */
const PARSE_BATCH_FILES = 16;

/**
 * What the import index reads: the source root (its folder name is the root package's name
 * when the root is itself a package) and file texts. A `Workspace` fits; the index depends on
 * this small interface, not on the workspace class, so the two files do not import each other.
 */
export interface ModuleSource {
  readonly root: string;
  /** A file already in memory, if it is. */
  cached(path: string): FileRead | undefined;
  /** Reads a repository file (text, binary, too large, or missing). */
  read(path: string): Promise<FileRead>;
}

/** How the graph was built: what was parsed, what was not, and what it cost. */
export interface ImportGraphStats {
  /** Python source files parsed (`.py`; files without the word `import` count, unparsed). */
  parsedFiles: number;
  /** Import edges between repository files (after de-duplication). */
  edges: number;
  /** Files where tree-sitter met a syntax error (their other imports are kept). */
  filesWithErrors: string[];
  /** `.py` files not parsed: binary, over `maxFileBytes`, unreadable or outside the root. */
  skippedFiles: string[];
  buildMs: number;
  /** Threads the build parsed on, the calling one included (see `PythonImportIndex`). */
  parseThreads: number;
}

/** The imports of one module file, resolved: repository files and external names, each sorted. */
export interface FileImports {
  targets: string[];
  external: string[];
}

/**
 * The Python import graph of a workspace, complete (resolution rules:
 * `PythonModuleIndex`). Nodes are module files (`.py`, `.pyi`, `.pyx`); only `.py` files
 * are parsed, so the others have incoming edges only. Lists are sorted by path and hold
 * each file once.
 */
export class ImportGraph {
  private readonly index = new Map<string, number>();
  private readonly forward: number[][];
  private readonly backward: number[][];

  /** The graph as stored in a cache folder (see `saveImportGraph`): files, then edges and externals by file index. */
  toStored(): StoredImportGraph {
    const edges: [number, number[]][] = [];
    this.forward.forEach((targets, i) => {
      if (targets.length > 0) edges.push([i, targets]);
    });
    const externals: [number, string[]][] = [];
    for (const [path, names] of this.externals) externals.push([this.index.get(path) as number, [...names]]);
    return {
      format: "loclab-import-graph",
      version: 1,
      fingerprint: importGraphFingerprint(),
      files: [...this.files],
      edges,
      externals,
      stats: this.stats,
    };
  }

  /** A graph from its stored form (indices checked). */
  static fromStored(stored: StoredImportGraph): ImportGraph {
    const { files } = stored;
    const at = (i: number) => {
      const path = files[i];
      if (path === undefined) throw new RangeError(`file index ${i} out of range (${files.length} files)`);
      return path;
    };
    const edges = new Map(stored.edges.map(([from, targets]) => [at(from), targets.map(at)]));
    const externals = new Map(stored.externals.map(([from, names]) => [at(from), names]));
    return new ImportGraph(files, edges, externals, stored.stats);
  }

  constructor(
    readonly files: readonly string[],
    edges: ReadonlyMap<string, readonly string[]>,
    private readonly externals: ReadonlyMap<string, readonly string[]>,
    readonly stats: ImportGraphStats,
  ) {
    files.forEach((file, i) => this.index.set(file, i));
    this.forward = files.map(() => []);
    this.backward = files.map(() => []);
    for (const [from, targets] of edges) {
      const i = this.index.get(from) as number;
      for (const target of targets) {
        const j = this.index.get(target) as number;
        this.forward[i]?.push(j);
        this.backward[j]?.push(i);
      }
    }
    for (const list of [...this.forward, ...this.backward]) list.sort((a, b) => a - b);
  }

  /** Whether `path` is a module file of the graph. */
  has(path: string): boolean {
    return this.index.has(path);
  }

  /** Repository files `path` imports directly. */
  importsOf(path: string): string[] {
    return this.neighbours(this.forward, path);
  }

  /** Repository files that import `path` directly. */
  importersOf(path: string): string[] {
    return this.neighbours(this.backward, path);
  }

  /** What `path` imports that resolves to no repository file, as written (`os`, `..gone`). */
  externalOf(path: string): readonly string[] {
    return this.externals.get(path) ?? [];
  }

  private neighbours(adjacency: number[][], path: string): string[] {
    const i = this.index.get(path);
    if (i === undefined) return [];
    return (adjacency[i] as number[]).map((j) => this.files[j] as string);
  }
}

/** A relative import with dots only (`from . import x`, `from .. import y`), which names its package without spelling it. */
const DOTS_ONLY_IMPORT = /\bfrom[\s\\]*\.+[\s\\]*import\b/;

/**
 * The imports of a workspace's module files, parsed one file at a time on demand and kept:
 * what connected_tree needs around one file costs the files around it, not the whole
 * repository; `graph()` parses the rest and gives the complete `ImportGraph`. Every `.py`
 * file is read through the workspace (so its content is cached like any other) and parsed
 * with tree-sitter; a file without the word `import` is not parsed (it has none). When the
 * workspace root is itself a package (`__init__.py` at the top), absolute imports name it by
 * the root folder's name.
 *
 * `importersOf(t)` parses only the files that can import `t`: those whose text holds `t`'s
 * module name (the file name without suffix, or the folder name of an `__init__`; every
 * import that resolves to `t` spells it, as a dotted component or an imported name), plus,
 * for an `__init__`, the files below its folder with a dots-only relative import. The answer
 * is the same as the complete graph's.
 */
export class PythonImportIndex {
  readonly moduleFiles: readonly string[];
  private readonly moduleSet: ReadonlySet<string>;
  private readonly resolver: PythonModuleIndex;
  private readonly rootPackage: string;
  private readonly parsed = new Map<string, Promise<FileImports>>();
  private readonly errors = new Set<string>();
  private readonly skipped = new Set<string>();
  private parsedCount = 0;
  private parser: PythonImportParser | undefined;
  private graphPromise: Promise<ImportGraph> | undefined;
  private builtGraph: ImportGraph | undefined;

  private readonly parseThreads: number;

  /**
   * `graph`: a complete graph stored for this tree (see `loadImportGraph`), which then answers
   * everything. `parseThreads`: threads the complete graph is parsed on, this one included
   * (default `defaultImportParseThreads()`: the cores, at most 4; 1 parses in this thread
   * only). Threads are used from MIN_THREADED_PARSE_FILES files left to parse, and only where
   * the compiled worker exists; the graph is the same either way.
   */
  constructor(
    private readonly workspace: ModuleSource,
    paths: readonly string[],
    options: { graph?: ImportGraph; parseThreads?: number } = {},
  ) {
    if (options.parseThreads !== undefined) checkThreadCount(options.parseThreads, "parseThreads");
    this.parseThreads = options.parseThreads ?? defaultImportParseThreads();
    this.moduleFiles = moduleFilesOf(paths);
    this.moduleSet = new Set(this.moduleFiles);
    this.rootPackage = basename(workspace.root);
    this.resolver = new PythonModuleIndex(paths, { rootPackage: this.rootPackage });
    // A complete graph stored for this tree (see `loadImportGraph`): every answer comes from it.
    if (options.graph) {
      this.builtGraph = options.graph;
      this.graphPromise = Promise.resolve(options.graph);
    }
  }

  /** Whether `path` is a module file (a node of the graph). */
  has(path: string): boolean {
    return this.moduleSet.has(path);
  }

  /** The complete graph, once it has been built. */
  get graphIfBuilt(): ImportGraph | undefined {
    return this.builtGraph;
  }

  /** The resolved imports of one module file (empty for `.pyi`, `.pyx` and unreadable files). */
  importsOf(path: string): Promise<FileImports> {
    let imports = this.parsed.get(path);
    if (!imports && this.builtGraph) {
      imports = Promise.resolve({
        targets: this.builtGraph.importsOf(path),
        external: [...this.builtGraph.externalOf(path)],
      });
      this.parsed.set(path, imports);
    }
    if (!imports) {
      imports = this.parse(path);
      this.parsed.set(path, imports);
    }
    return imports;
  }

  /** The module files that import `target` directly, sorted. */
  async importersOf(target: string): Promise<string[]> {
    if (this.builtGraph) return this.builtGraph.importersOf(target);
    const slash = target.lastIndexOf("/");
    const fileName = target.slice(slash + 1);
    const isInit = fileName === "__init__.py" || fileName === "__init__.pyi";
    const folder = slash < 0 ? "" : target.slice(0, slash);
    const name = isInit
      ? folder === ""
        ? this.rootPackage
        : folder.slice(folder.lastIndexOf("/") + 1)
      : fileName.replace(/\.(py|pyi|pyx)$/, "");
    const needle = Buffer.from(name, "utf8");
    const importers: string[] = [];
    for (const file of this.moduleFiles) {
      if (file === target || !file.endsWith(".py")) continue;
      let imports = await this.parsed.get(file);
      if (!imports) {
        const read = this.workspace.cached(file) ?? (await this.workspace.read(file).catch(() => undefined));
        if (!read || read.kind !== "text") continue;
        const underFolder = folder === "" || file.startsWith(`${folder}/`);
        const candidate =
          read.bytes.indexOf(needle) >= 0 ||
          (isInit && underFolder && DOTS_ONLY_IMPORT.test(read.bytes.toString("latin1")));
        if (!candidate) continue;
        imports = await this.importsOf(file);
      }
      if (imports.targets.includes(target)) importers.push(file);
    }
    return importers;
  }

  /** Parses every module file not parsed yet and gives the complete graph (built once). */
  graph(): Promise<ImportGraph> {
    this.graphPromise ??= this.buildGraph();
    return this.graphPromise;
  }

  private async buildGraph(): Promise<ImportGraph> {
    const started = performance.now();
    const edges = new Map<string, string[]>();
    const externals = new Map<string, string[]>();
    let edgeCount = 0;
    const sources = this.moduleFiles.filter((path) => path.endsWith(".py"));
    const todo = sources.filter((path) => !this.parsed.has(path));
    let parseThreads = 1;
    if (this.parseThreads > 1 && todo.length >= MIN_THREADED_PARSE_FILES && importParseThreadsAvailable()) {
      const pool = sharedImportParsePool(this.parseThreads - 1);
      parseThreads = pool.threads + 1;
      await this.parseOnThreads(todo, pool);
    }
    // Reads run ahead of parsing (at most 16 at a time), so the disk and the parser overlap.
    const ahead = new Map<string, Promise<unknown>>();
    const prefetch = (i: number) => {
      const path = sources[i];
      if (path !== undefined && !this.parsed.has(path))
        ahead.set(
          path,
          this.workspace.read(path).catch(() => undefined),
        );
    };
    for (let i = 0; i < 16; i += 1) prefetch(i);
    for (let i = 0; i < sources.length; i += 1) {
      prefetch(i + 16);
      const path = sources[i] as string;
      await ahead.get(path);
      ahead.delete(path);
      const { targets, external } = await this.importsOf(path);
      if (targets.length > 0) {
        edges.set(path, targets);
        edgeCount += targets.length;
      }
      if (external.length > 0) externals.set(path, external);
    }
    this.builtGraph = new ImportGraph(this.moduleFiles, edges, externals, {
      parsedFiles: this.parsedCount,
      edges: edgeCount,
      filesWithErrors: [...this.errors].sort(comparePaths),
      skippedFiles: [...this.skipped].sort(comparePaths),
      buildMs: performance.now() - started,
      parseThreads,
    });
    return this.builtGraph;
  }

  /**
   * Parses `todo` (files not parsed yet) on this thread and the pool's at once: this thread
   * takes files from the front, each thread of the pool batches of PARSE_BATCH_FILES from the
   * back, until they meet. Every file's answer is kept in `parsed` as soon as it is claimed,
   * so that `importsOf` shares it. A lost thread's files are parsed here, and the pool is not
   * used again in this build.
   */
  private async parseOnThreads(todo: readonly string[], pool: ImportParsePool): Promise<void> {
    let front = 0;
    let back = todo.length;
    let lost = false;
    const claim = (path: string, imports: Promise<FileImports>) => {
      this.parsed.set(path, imports);
      // Awaited later, in order, by buildGraph, which reports the first failure; this keeps
      // a failure of another file from surfacing as an unhandled rejection meanwhile.
      imports.catch(() => undefined);
    };
    const own = async () => {
      for (let parsedHere = 0; front < back; parsedHere += 1) {
        const path = todo[front++] as string;
        if (!this.parsed.has(path)) {
          const imports = this.parse(path);
          claim(path, imports);
          await imports.catch(() => undefined);
        }
        // Parsing is synchronous: let the threads' answers in now and then, so they get their next batch.
        if (parsedHere % 8 === 7) await new Promise((resolve) => setImmediate(resolve));
      }
    };
    const helper = async () => {
      while (!lost && back - front > PARSE_BATCH_FILES) {
        const paths = todo.slice(back - PARSE_BATCH_FILES, back).filter((path) => !this.parsed.has(path));
        back -= PARSE_BATCH_FILES;
        const answers = this.parseBatch(paths, pool).then((batch) => {
          if (batch.lost) lost = true;
          return batch.answers;
        });
        paths.forEach((path, i) =>
          claim(
            path,
            answers.then((list) => list[i] as Promise<FileImports>),
          ),
        );
        await answers.catch(() => undefined);
      }
    };
    await Promise.all([own(), ...Array.from({ length: pool.threads * BATCHES_IN_FLIGHT_PER_THREAD }, helper)]);
  }

  /** One batch parsed on the pool: each file's answer (sources without an import need no thread); on a lost thread, parsed here. */
  private async parseBatch(
    paths: readonly string[],
    pool: ImportParsePool,
  ): Promise<{ answers: Promise<FileImports>[]; lost: boolean }> {
    const sources = await Promise.all(paths.map((path) => this.sourceOf(path)));
    const texts = sources.filter((source): source is string => typeof source === "string");
    let results: ParsedSource[] | undefined;
    let lost = false;
    if (texts.length > 0) {
      try {
        results = await pool.parse(texts);
      } catch (error) {
        if (!(error instanceof ImportParseThreadLost)) throw error;
        lost = true;
      }
    }
    let next = 0;
    const answers = paths.map(async (path, i): Promise<FileImports> => {
      const source = sources[i] as string | FileImports;
      if (typeof source !== "string") return source;
      const result = results?.[next++];
      if (result === undefined) return this.parseHere(path, source);
      if ("error" in result) throw new Error(`${path}: ${result.error}`);
      return this.resolved(path, result);
    });
    return { answers, lost };
  }

  private async parse(path: string): Promise<FileImports> {
    const source = await this.sourceOf(path);
    return typeof source === "string" ? this.parseHere(path, source) : source;
  }

  /**
   * A module file's text when it is to be parsed; else its (empty) imports: not a `.py` module
   * file, unreadable or binary (skipped), or without the word `import`. Counts parsed files.
   */
  private async sourceOf(path: string): Promise<string | FileImports> {
    if (!path.endsWith(".py") || !this.moduleSet.has(path)) return { targets: [], external: [] };
    let read;
    try {
      read = await this.workspace.read(path);
    } catch {
      this.skipped.add(path);
      return { targets: [], external: [] };
    }
    if (read.kind !== "text") {
      this.skipped.add(path);
      return { targets: [], external: [] };
    }
    this.parsedCount += 1;
    if (read.bytes.indexOf("import") < 0) return { targets: [], external: [] };
    return read.bytes.toString("utf8");
  }

  private async parseHere(path: string, source: string): Promise<FileImports> {
    this.parser ??= await loadPythonImportParser();
    return this.resolved(path, pythonImports(source, this.parser));
  }

  private resolved(path: string, { imports, hasError }: PythonImportsResult): FileImports {
    if (hasError) this.errors.add(path);
    return resolveAll(this.resolver, path, imports);
  }
}

/** The de-duplicated, sorted targets and external names of a file's imports. */
export function resolveAll(resolver: PythonModuleIndex, file: string, imports: readonly PythonImport[]): FileImports {
  const targets = new Set<string>();
  const external = new Set<string>();
  for (const statement of imports) {
    const resolved = resolver.resolve(file, statement);
    for (const target of resolved.targets) targets.add(target);
    for (const name of resolved.external) external.add(name);
  }
  return { targets: [...targets].sort(comparePaths), external: [...external].sort(comparePaths) };
}

/** The module files (graph nodes) among a listing's paths. */
function moduleFilesOf(paths: readonly string[]): string[] {
  return paths.filter((path) => MODULE_SUFFIXES.some((suffix) => path.endsWith(suffix)));
}

/** The stored form of an `ImportGraph` (`import-graph.<fingerprint>.json` in a cache folder). */
export const storedImportGraphSchema = z.object({
  format: z.literal("loclab-import-graph"),
  version: z.literal(1),
  fingerprint: z.string(),
  files: z.array(z.string()),
  edges: z.array(z.tuple([z.number().int().nonnegative(), z.array(z.number().int().nonnegative())])),
  externals: z.array(z.tuple([z.number().int().nonnegative(), z.array(z.string())])),
  stats: z.object({
    parsedFiles: z.number().int().nonnegative(),
    edges: z.number().int().nonnegative(),
    filesWithErrors: z.array(z.string()),
    skippedFiles: z.array(z.string()),
    buildMs: z.number().nonnegative(),
    parseThreads: z.number().int().positive(),
  }),
});
export type StoredImportGraph = z.infer<typeof storedImportGraphSchema>;

let fingerprint: string | undefined;

/**
 * What a stored graph is keyed by besides its tree: the Python package's parser fingerprint
 * (its code, the grammar, the tree-sitter runtime) and this file's code (graph building and
 * resolution of each file's imports). Any change to either makes stored graphs stale.
 */
export function importGraphFingerprint(): string {
  fingerprint ??= createHash("sha256")
    .update(importParserFingerprint())
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex")
    .slice(0, 16);
  return fingerprint;
}

/** Where the graph of the tree whose cache folder is `folder` is stored. */
export function importGraphFile(folder: string): string {
  return join(folder, `import-graph.${importGraphFingerprint()}.json`);
}

/**
 * The stored graph of a cached tree, when there is one for this parser and it covers exactly
 * the module files of `paths`; undefined otherwise (it is then built and stored again). A
 * stored file that does not parse or fails its schema is treated as absent and replaced.
 */
export function loadImportGraph(folder: string, paths: readonly string[]): ImportGraph | undefined {
  let text: string;
  try {
    text = readFileSync(importGraphFile(folder), "utf8");
  } catch {
    return undefined;
  }
  let stored: StoredImportGraph;
  try {
    const parsed = storedImportGraphSchema.safeParse(JSON.parse(text));
    if (!parsed.success) return undefined;
    stored = parsed.data;
  } catch {
    return undefined;
  }
  const modules = moduleFilesOf(paths);
  if (
    stored.fingerprint !== importGraphFingerprint() ||
    stored.files.length !== modules.length ||
    stored.files.some((file, i) => file !== modules[i])
  )
    return undefined;
  try {
    return ImportGraph.fromStored(stored);
  } catch {
    return undefined;
  }
}

/** Stores a tree's complete graph in its cache folder (temporary file, then rename). */
export function saveImportGraph(folder: string, graph: ImportGraph): void {
  const target = importGraphFile(folder);
  const temporary = `${target}.tmp-${process.pid}-${Math.random().toString(16).slice(2)}`;
  try {
    writeFileSync(temporary, `${JSON.stringify(graph.toStored())}\n`);
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
}
