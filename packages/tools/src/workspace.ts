import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type FileEntry } from "./file-listing.js";
import type { FileRead } from "./file-read.js";
import { readFileClassified } from "./file-reading.js";
import { type ImportGraph, PythonImportIndex, loadImportGraph, saveImportGraph } from "./import-graph.js";
import { clip } from "./repo-path.js";
import { ToolError } from "./tool-error.js";
import { buildFileIndex, type FileIndex, foldersTrusted, type WorkspaceSource } from "./workspace-file-index.js";

export type { WorkspaceSource } from "./workspace-file-index.js";
import { WorkspacePack } from "./workspace-pack.js";
import { TextCache } from "./workspace-text-cache.js";
import type { ToolLimits } from "./tool-limits.js";

/** Memory and cache figures of a workspace, for benchmarks and logs. */
export interface WorkspaceStats {
  /** Files listed (0 until the list is first needed). */
  files: number;
  cachedTextFiles: number;
  cachedBytes: number;
  evictions: number;
  diskReads: number;
  /** Files served from the content pack (see `cacheFolder`). */
  packReads: number;
  /** Bytes of the content pack's contents read whole (0 until a search that scans every file needs them; a pack's files are otherwise read one by one). */
  packBytes: number;
  importGraphBuilt: boolean;
  /** Where the import graph came from: built in this process, or loaded from the cache folder. */
  importGraphSource: "built" | "cache" | null;
}

export interface WorkspaceInit {
  /** Absolute real path of the checkout (symlinks resolved). */
  root: string;
  source: WorkspaceSource;
  limits: ToolLimits;
  listFiles: () => Promise<FileEntry[]>;
  /** Set for workspaces materialized from a mirror. */
  repo?: string;
  commit?: string;
  /**
   * A writable folder beside a read-only cached tree (a materialized commit, a shuffled copy)
   * where what is derived from the tree is kept for every later process: the content pack
   * (`CONTENT_PACK_FILE`, written by `writeContentPack`) and the import graph. Only for trees
   * that never change.
   */
  cacheFolder?: string;
}

/**
 * One checkout as the tools see it: its file list, the contents read so far and the import
 * graph, all built lazily on first use and kept, so that repeated tool calls in a session
 * do not touch the disk again. Content is kept up to `limits.maxCacheBytes` (least recently
 * used files are dropped beyond it and read again when needed); files over
 * `limits.maxFileBytes` are never read whole. Reads are confined to the root: every path
 * is resolved with symlinks followed and refused when it lands outside.
 *
 * A workspace assumes its files do not change while it is open (a materialized tree is
 * read-only); open a new one after changing a working tree.
 */
export class Workspace {
  readonly root: string;
  readonly source: WorkspaceSource;
  readonly limits: ToolLimits;
  readonly repo: string | undefined;
  readonly commit: string | undefined;
  readonly cacheFolder: string | undefined;
  private readonly listFilesOnce: () => Promise<FileEntry[]>;
  private filesPromise: Promise<FileIndex> | undefined;
  private indexPromise: Promise<PythonImportIndex> | undefined;
  private readonly cache: TextCache;
  private diskReads = 0;
  private readonly pack: WorkspacePack;
  /** The listing, once built (for code that runs synchronously after `files()`). */
  private filesIndex: FileIndex | undefined;
  private graphBuilt = false;
  private graphSource: "built" | "cache" | null = null;
  private fileCount = 0;

  constructor(init: WorkspaceInit) {
    this.root = init.root;
    this.source = init.source;
    this.limits = init.limits;
    this.repo = init.repo;
    this.commit = init.commit;
    this.cacheFolder = init.cacheFolder;
    this.listFilesOnce = init.listFiles;
    this.cache = new TextCache(init.limits.maxCacheBytes);
    this.pack = new WorkspacePack(init.cacheFolder, init.limits.maxCacheBytes);
  }

  /** Every file of the workspace (regular files and symbolic links), sorted by path. */
  async files(): Promise<readonly FileEntry[]> {
    return (await this.index()).entries;
  }

  /** The repository-relative paths of `files()`. */
  async paths(): Promise<readonly string[]> {
    return (await this.index()).paths;
  }

  /** The file entry at `path`, if the workspace has one. */
  async entry(path: string): Promise<FileEntry | undefined> {
    return (await this.index()).byPath.get(path);
  }

  /** Whether `path` is a folder holding at least one file (`""` is the root). */
  async isFolder(path: string): Promise<boolean> {
    return (await this.index()).folders.has(path);
  }

  /**
   * The absolute path of `path` with every symbolic link resolved, refused when it lands
   * outside the root (a link to `/etc/passwd`, a folder link out of the checkout).
   */
  async resolveInside(path: string): Promise<string> {
    return this.resolveInsideNow(path);
  }

  private resolveInsideNow(path: string): string {
    const absolute = path === "" ? this.root : join(this.root, path);
    // A path that does not exist is judged by its nearest existing folder.
    let existing = absolute;
    let rest = "";
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = realpathSync(existing);
      } catch {
        const parent = dirname(existing);
        if (parent === existing || existing === this.root) return absolute;
        rest = rest === "" ? basename(existing) : `${basename(existing)}/${rest}`;
        existing = parent;
      }
    }
    if (real !== this.root && !real.startsWith(`${this.root}/`)) {
      throw new ToolError(
        "refused",
        `${JSON.stringify(clip(path))} is a symbolic link that points outside the repository, or lies below one; it is not read`,
      );
    }
    return rest === "" ? real : join(real, rest);
  }

  /**
   * The content of a file (see `FileRead`), from memory when it was read before. Symbolic
   * links are followed when they stay inside the root and refused otherwise.
   */
  async read(path: string): Promise<FileRead> {
    const known = this.cached(path);
    if (known) return known;
    const index = await this.index();
    const packed = this.fromPack(path);
    if (packed) return packed;
    this.diskReads += 1;
    // Confinement: a regular file of the listing whose folders were all checked to be real
    // folders when the listing was made (`trustedFolders`) is opened directly, with
    // O_NOFOLLOW (a file that became a link since goes the slow way); anything else has every
    // link on its path resolved and is refused when it leaves the root.
    let read: FileRead | undefined;
    if (index.byPath.get(path)?.kind === "file" && foldersTrusted(index, path)) {
      read = readFileClassified(path, join(this.root, path), this.limits.maxFileBytes, { noFollow: true });
    }
    read ??= readFileClassified(path, this.resolveInsideNow(path), this.limits.maxFileBytes) as FileRead;
    this.cache.remember(read);
    return read;
  }

  /** A file from the content pack, when the workspace has one that holds it. */
  private fromPack(path: string): FileRead | undefined {
    const found = this.pack.file(path, this.limits.maxFileBytes, this.root);
    if (!found) return undefined;
    this.cache.remember(found.read, found.cost);
    return found.read;
  }

  /**
   * For search: a test, by a file's position in `files()` (available once `files()` was
   * awaited), that says false for a file whose packed text cannot hold `needle`, and undefined
   * when the file must be searched or the pack cannot tell (`WorkspacePack.filter`). Files it
   * says false for hold no match.
   */
  packFilter(needle: Buffer, ignoreCase: boolean): ((position: number) => boolean | undefined) | undefined {
    const index = this.filesIndex;
    return index ? this.pack.filter(needle, ignoreCase, index.entries, this.limits.maxFileBytes) : undefined;
  }

  /** What `read` would give, when it is known without touching the disk. */
  cached(path: string): FileRead | undefined {
    return this.cache.get(path);
  }

  /** Byte offsets of the lines of a text file read with `read` (kept with its content). */
  lineStarts(path: string, bytes: Buffer): Uint32Array {
    return this.cache.lineStarts(path, bytes);
  }

  /** The lower-cased content of a text file and its line offsets, for case-insensitive search (`TextCache.lowerCased`). */
  lowerCased(path: string, bytes: Buffer): { lower: Buffer; lineStarts: Uint32Array } {
    return this.cache.lowerCased(path, bytes);
  }

  /**
   * Reads every file once (at most `concurrency` at a time), so that the first search of a
   * session costs no more than the next. Content beyond `maxCacheBytes` is not kept.
   */
  async warm(options: { concurrency?: number } = {}): Promise<void> {
    const entries = (await this.files()).filter((entry) => entry.kind === "file");
    let next = 0;
    const worker = async () => {
      while (next < entries.length) {
        const entry = entries[next++] as FileEntry;
        await this.read(entry.path);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 16 }, worker));
  }

  /**
   * The Python imports of the workspace, parsed file by file as they are needed, and kept.
   * With a cache folder holding this commit's graph (written by `importGraph`), the index is
   * answered from that graph and nothing is parsed.
   */
  importIndex(): Promise<PythonImportIndex> {
    this.indexPromise ??= this.paths().then(async (paths) => {
      const cached = this.cacheFolder ? loadImportGraph(this.cacheFolder, paths) : undefined;
      if (cached) this.graphSource = "cache";
      const index = new PythonImportIndex(this, paths, cached ? { graph: cached } : {});
      // A cached tree's graph is built whole on first use and stored, once per commit for every
      // later process, run, seed and control (a tree opened in place parses what it is asked).
      if (this.cacheFolder && !cached) await this.storeGraph(index);
      return index;
    });
    return this.indexPromise;
  }

  /**
   * The complete Python import graph of the workspace, built on first use and kept; with a
   * cache folder it is stored there once built, and every later process loads it instead.
   */
  async importGraph(): Promise<ImportGraph> {
    const index = await this.importIndex();
    const graph = index.graphIfBuilt ?? (await index.graph());
    if (this.graphSource === null) this.graphSource = "built";
    this.graphBuilt = true;
    return graph;
  }

  private async storeGraph(index: PythonImportIndex): Promise<void> {
    const graph = await index.graph();
    this.graphSource = "built";
    try {
      saveImportGraph(this.cacheFolder as string, graph);
    } catch {
      // A cache folder this user cannot write: the graph is still used, only not kept.
    }
  }

  stats(): WorkspaceStats {
    return {
      files: this.fileCount,
      cachedTextFiles: this.cache.textFiles,
      cachedBytes: this.cache.bytes,
      evictions: this.cache.evictions,
      diskReads: this.diskReads,
      packReads: this.pack.reads,
      packBytes: this.pack.bytesLoaded,
      importGraphBuilt: this.graphBuilt,
      importGraphSource: this.graphSource,
    };
  }

  /** Drops everything kept in memory (contents, file list, import graph). */
  dispose(): void {
    this.cache.clear();
    this.pack.dispose();
    this.filesIndex = undefined;
    this.filesPromise = undefined;
    this.indexPromise = undefined;
    this.graphBuilt = false;
    this.graphSource = null;
  }

  private index(): Promise<FileIndex> {
    this.filesPromise ??= this.listFilesOnce().then((entries) => {
      const index = buildFileIndex(entries, this.root, this.source);
      this.filesIndex = index;
      this.fileCount = index.entries.length;
      return index;
    });
    return this.filesPromise;
  }
}
