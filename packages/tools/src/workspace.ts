import { constants } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { type FileEntry, comparePaths } from "./file-listing.js";
import type { FileRead } from "./file-read.js";
import { type ImportGraph, PythonImportIndex } from "./import-graph.js";
import { clip } from "./repo-path.js";
import { lineStartOffsets } from "./text-lines.js";
import { ToolError } from "./tool-error.js";
import type { ToolLimits } from "./tool-limits.js";

/** Where a workspace's file list comes from. */
export type WorkspaceSource =
  /** A tree materialized from a git mirror at one commit: the files of that commit's tree. */
  | "git-commit"
  /** A git working tree opened in place: the files of its index (`git ls-files`). */
  | "git-index"
  /** A plain directory: every regular file and symbolic link under it. */
  | "directory";

/** Bytes read first from a file: a NUL byte among them makes it binary without reading the rest. */
const BINARY_PROBE_BYTES = 8192;

interface CachedText {
  bytes: Buffer;
  lastUsed: number;
  lineStarts?: Uint32Array;
  lower?: Buffer;
  lowerLineStarts?: Uint32Array;
  cost: number;
}

/** Memory and cache figures of a workspace, for benchmarks and logs. */
export interface WorkspaceStats {
  /** Files listed (0 until the list is first needed). */
  files: number;
  cachedTextFiles: number;
  cachedBytes: number;
  evictions: number;
  diskReads: number;
  importGraphBuilt: boolean;
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
  private readonly listFilesOnce: () => Promise<FileEntry[]>;
  private filesPromise: Promise<FileIndex> | undefined;
  private indexPromise: Promise<PythonImportIndex> | undefined;
  private readonly texts = new Map<string, CachedText>();
  private readonly kinds = new Map<string, Exclude<FileRead, { kind: "text" }>>();
  private cachedBytes = 0;
  private evictions = 0;
  private diskReads = 0;
  private graphBuilt = false;
  private fileCount = 0;
  private clock = 0;

  constructor(init: WorkspaceInit) {
    this.root = init.root;
    this.source = init.source;
    this.limits = init.limits;
    this.repo = init.repo;
    this.commit = init.commit;
    this.listFilesOnce = init.listFiles;
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
    const absolute = path === "" ? this.root : join(this.root, path);
    // A path that does not exist is judged by its nearest existing folder.
    let existing = absolute;
    let rest = "";
    let real: string | undefined;
    while (real === undefined) {
      try {
        real = await realpath(existing);
      } catch {
        const parent = dirname(existing);
        if (parent === existing || existing === this.root) return absolute;
        rest = rest === "" ? basename(existing) : `${basename(existing)}/${rest}`;
        existing = parent;
      }
    }
    if (real !== this.root && !real.startsWith(`${this.root}/`)) {
      throw new ToolError("refused", `${JSON.stringify(clip(path))} is a symbolic link that points outside the repository, or lies below one; it is not read`);
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
    const absolute = await this.resolveInside(path);
    this.diskReads += 1;
    let handle;
    try {
      // O_NONBLOCK: opening a FIFO (or a link to one) must not wait for a writer; what is not a
      // regular file is refused right after, from the open handle (no check-then-open race).
      handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      const missing: FileRead = { kind: "missing", path, reason: (error as NodeJS.ErrnoException).code ?? "unreadable" };
      this.kinds.set(path, missing);
      return missing;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        const missing: FileRead = { kind: "missing", path, reason: "not a regular file" };
        this.kinds.set(path, missing);
        return missing;
      }
      if (stat.size > this.limits.maxFileBytes) {
        const large: FileRead = { kind: "large", path, size: stat.size, absolutePath: absolute };
        this.kinds.set(path, large);
        return large;
      }
      // The head first: most binary files show a NUL byte there, and are then not read on.
      const bytes = Buffer.allocUnsafe(stat.size);
      const head = Math.min(stat.size, BINARY_PROBE_BYTES);
      let filled = (await handle.read(bytes, 0, head, 0)).bytesRead;
      const binaryHead = bytes.subarray(0, filled).indexOf(0) >= 0;
      while (!binaryHead && filled < stat.size) {
        const { bytesRead } = await handle.read(bytes, filled, stat.size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (binaryHead || bytes.subarray(0, filled).indexOf(0) >= 0) {
        const binary: FileRead = { kind: "binary", path, size: stat.size };
        this.kinds.set(path, binary);
        return binary;
      }
      const text = filled === bytes.length ? bytes : Buffer.from(bytes.subarray(0, filled));
      this.remember(path, { bytes: text, cost: text.length, lastUsed: ++this.clock });
      return { kind: "text", path, bytes: text, size: text.length };
    } finally {
      await handle.close();
    }
  }

  /** What `read` would give, when it is known without touching the disk. */
  cached(path: string): FileRead | undefined {
    const text = this.texts.get(path);
    if (text) {
      text.lastUsed = ++this.clock;
      return { kind: "text", path, bytes: text.bytes, size: text.bytes.length };
    }
    return this.kinds.get(path);
  }

  /** Byte offsets of the lines of a text file read with `read` (kept with its content). */
  lineStarts(path: string, bytes: Buffer): Uint32Array {
    const cached = this.texts.get(path);
    if (cached?.bytes === bytes) {
      if (!cached.lineStarts) {
        cached.lineStarts = lineStartOffsets(bytes);
        this.grow(path, cached, cached.lineStarts.byteLength);
      }
      return cached.lineStarts;
    }
    return lineStartOffsets(bytes);
  }

  /**
   * The lower-cased content of a text file and its line offsets, for case-insensitive
   * search (`String.prototype.toLowerCase`, which keeps every line break where it was, so
   * line numbers agree with the original).
   */
  lowerCased(path: string, bytes: Buffer): { lower: Buffer; lineStarts: Uint32Array } {
    const cached = this.texts.get(path);
    if (cached?.bytes === bytes && cached.lower && cached.lowerLineStarts) return { lower: cached.lower, lineStarts: cached.lowerLineStarts };
    const lower = lowerCaseBytes(bytes);
    const lineStarts = lineStartOffsets(lower);
    if (cached?.bytes === bytes) {
      cached.lower = lower;
      cached.lowerLineStarts = lineStarts;
      this.grow(path, cached, lower === bytes ? lineStarts.byteLength : lower.length + lineStarts.byteLength);
    }
    return { lower, lineStarts };
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

  /** The Python imports of the workspace, parsed file by file as they are needed, and kept. */
  importIndex(): Promise<PythonImportIndex> {
    this.indexPromise ??= this.paths().then((paths) => new PythonImportIndex(this, paths));
    return this.indexPromise;
  }

  /** The complete Python import graph of the workspace, built on first use and kept. */
  async importGraph(): Promise<ImportGraph> {
    const graph = await (await this.importIndex()).graph();
    this.graphBuilt = true;
    return graph;
  }

  stats(): WorkspaceStats {
    return {
      files: this.fileCount,
      cachedTextFiles: this.texts.size,
      cachedBytes: this.cachedBytes,
      evictions: this.evictions,
      diskReads: this.diskReads,
      importGraphBuilt: this.graphBuilt,
    };
  }

  /** Drops everything kept in memory (contents, file list, import graph). */
  dispose(): void {
    this.texts.clear();
    this.kinds.clear();
    this.cachedBytes = 0;
    this.filesPromise = undefined;
    this.indexPromise = undefined;
    this.graphBuilt = false;
  }

  private index(): Promise<FileIndex> {
    this.filesPromise ??= this.listFilesOnce().then((entries) => {
      const index = buildFileIndex(entries);
      this.fileCount = index.entries.length;
      return index;
    });
    return this.filesPromise;
  }

  private remember(path: string, entry: CachedText): void {
    if (entry.cost > this.limits.maxCacheBytes) return; // larger than the whole budget: used once, not kept
    const previous = this.texts.get(path);
    if (previous) this.cachedBytes -= previous.cost; // two concurrent reads of one file
    this.texts.set(path, entry);
    this.cachedBytes += entry.cost;
    this.evict(path);
  }

  private grow(path: string, entry: CachedText, bytes: number): void {
    entry.cost += bytes;
    this.cachedBytes += bytes;
    if (this.cachedBytes > this.limits.maxCacheBytes) this.evict(path);
  }

  /**
   * When the cache is over its budget, drops the least recently used contents (never `keep`)
   * until it holds at most 90 % of it, so that a cache that stays full sorts rarely.
   */
  private evict(keep: string | undefined): void {
    if (this.cachedBytes <= this.limits.maxCacheBytes) return;
    const target = Math.floor(this.limits.maxCacheBytes * 0.9);
    const byAge = [...this.texts.entries()].filter(([path]) => path !== keep).sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [path, entry] of byAge) {
      if (this.cachedBytes <= target) break;
      this.texts.delete(path);
      this.cachedBytes -= entry.cost;
      this.evictions += 1;
    }
  }
}

interface FileIndex {
  entries: FileEntry[];
  paths: string[];
  byPath: Map<string, FileEntry>;
  folders: Set<string>;
}

function buildFileIndex(entries: FileEntry[]): FileIndex {
  const sorted = [...entries].sort((a, b) => comparePaths(a.path, b.path));
  const folders = new Set<string>([""]);
  for (const { path } of sorted) {
    let slash = path.lastIndexOf("/");
    while (slash > 0) {
      const folder = path.slice(0, slash);
      if (folders.has(folder)) break;
      folders.add(folder);
      slash = folder.lastIndexOf("/");
    }
  }
  return { entries: sorted, paths: sorted.map((entry) => entry.path), byPath: new Map(sorted.map((entry) => [entry.path, entry])), folders };
}

/** Lower-cased UTF-8 bytes; the same buffer when lower-casing changes nothing. */
function lowerCaseBytes(bytes: Buffer): Buffer {
  const text = bytes.toString("utf8");
  const lower = text.toLowerCase();
  if (lower === text && Buffer.byteLength(text) === bytes.length) return bytes;
  return Buffer.from(lower, "utf8");
}
