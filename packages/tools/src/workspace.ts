import { realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isAscii } from "node:buffer";
import { filesLowerCasedExactly, asciiLowerCase } from "./case-folding.js";
import {
  CONTENT_PACK_FILE,
  type ContentPack,
  loadContentPack,
  packData,
  packFilesHolding,
  packedBytes,
} from "./content-pack.js";
import { SIGNATURE_BYTES, needleBits, signatureHas } from "./trigram-signatures.js";
import { type FileEntry } from "./file-listing.js";
import type { FileRead } from "./file-read.js";
import { readFileClassified } from "./file-reading.js";
import { type ImportGraph, PythonImportIndex, loadImportGraph, saveImportGraph } from "./import-graph.js";
import { clip } from "./repo-path.js";
import { ToolError } from "./tool-error.js";
import { buildFileIndex, type FileIndex, foldersTrusted, type WorkspaceSource } from "./workspace-file-index.js";

export type { WorkspaceSource } from "./workspace-file-index.js";
import { TextCache } from "./workspace-text-cache.js";
import type { ToolLimits } from "./tool-limits.js";

/**
 * Whether a search reads a pack's contents whole rather than its candidate files (those their
 * signatures leave) one by one: whichever costs less, by two costs measured here on django's
 * pack (16.7 MB): a positioned read of a small file (open, stat, read, close) about 14 µs,
 * and reading about 0.8 ms per MB. The whole contents, once read, also serve every later
 * search of the process.
 */
function readPackWhole(candidates: number, candidateBytes: number, dataLength: number): boolean {
  const POSITIONED_READ_MS = 0.014;
  const READ_MS_PER_BYTE = 0.8e-6;
  return candidates * POSITIONED_READ_MS + candidateBytes * READ_MS_PER_BYTE >= dataLength * READ_MS_PER_BYTE;
}

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
  private packReads = 0;
  private pack: ContentPack | null | undefined;
  /** The pack with A–Z lower-cased (same length), for case-insensitive filtering. */
  private packLower: Buffer | undefined;
  /** Per packed text file, 1 when `packLower` finds exactly the ASCII needles that full lower-casing would. */
  private packAscii: Uint8Array | undefined;
  /** Per file of the listing, its text file in the pack (-1: not a packed text file within maxFileBytes). */
  private packPositions: Int32Array | undefined;
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
    if (this.pack === undefined) this.pack = this.loadPack();
    const packed = this.pack?.files.get(path);
    if (!this.pack || !packed) return undefined;
    const { maxFileBytes } = this.limits;
    if (packed.size > maxFileBytes) {
      const large: FileRead = { kind: "large", path, size: packed.size, absolutePath: join(this.root, path) };
      this.cache.remember(large);
      return large;
    }
    if (packed.kind === "l") return undefined; // over the pack's cap but within this workspace's: read from the tree
    this.packReads += 1;
    if (packed.kind === "b") {
      const binary: FileRead = { kind: "binary", path, size: packed.size };
      this.cache.remember(binary);
      return binary;
    }
    const loaded = this.pack.data !== undefined;
    const bytes = packedBytes(this.pack, packed);
    // A view of the loaded contents costs only what is derived from it later; a file read
    // from the pack on its own is a copy, and counts as one.
    const read: FileRead = { kind: "text", path, bytes, size: bytes.length };
    this.cache.remember(read, loaded ? 0 : bytes.length);
    return read;
  }

  /**
   * For search: a test, by a file's position in `files()` (available once `files()` was
   * awaited), that says false for a file whose packed text cannot hold `needle`
   * (by its trigram signature, or for needles under three bytes by one scan of the whole
   * pack), and undefined when the file must be searched or the pack cannot tell (no pack; the file is not a
   * packed text file within `maxFileBytes`; ignoring case, a needle that is not ASCII, or a
   * file holding one of the two characters whose lower case is ASCII, U+0130 and U+212A).
   * Files it says false for hold no match.
   */
  packFilter(needle: Buffer, ignoreCase: boolean): ((position: number) => boolean | undefined) | undefined {
    if (this.pack === undefined) this.pack = this.loadPack();
    const pack = this.pack;
    const index = this.filesIndex;
    if (!pack || !index || (ignoreCase && !isAscii(needle))) return undefined;
    // Per file of the listing (by position), its text file in the pack, or -1.
    if (!this.packPositions) {
      const { maxFileBytes } = this.limits;
      this.packPositions = Int32Array.from(index.entries, (entry) => {
        const packed = entry.kind === "file" ? pack.files.get(entry.path) : undefined;
        return packed && packed.text >= 0 && packed.size <= maxFileBytes ? packed.text : -1;
      });
    }
    const positions = this.packPositions;
    const exact = ignoreCase ? (this.packAscii ??= filesLowerCasedExactly(pack)) : undefined;
    const bits = needleBits(needle);
    // Three bytes or more: the trigram signatures decide, without reading the contents.
    // Shorter: one scan of the whole pack (lower-cased once, for case-insensitive needles).
    if (!bits) {
      const holds = packFilesHolding(
        pack,
        ignoreCase ? (this.packLower ??= asciiLowerCase(packData(pack))) : packData(pack),
        needle,
      );
      return (position) => {
        const text = positions[position] ?? -1;
        if (text < 0 || (exact && exact[text] !== 1)) return undefined;
        return holds[text] === 1;
      };
    }
    // The signatures of every text file at once: the files they leave are read next, one
    // positioned read each, or the contents whole when that costs less (`readPackWhole`).
    const { signatures } = pack;
    const candidate = new Uint8Array(pack.textStarts.length);
    let candidates = 0;
    let candidateBytes = 0;
    for (let text = 0; text < candidate.length; text += 1) {
      if (!signatureHas(signatures, SIGNATURE_BYTES * text, bits)) continue;
      candidate[text] = 1;
      candidates += 1;
      candidateBytes += (pack.textEnds[text] as number) - (pack.textStarts[text] as number);
    }
    if (!pack.data && readPackWhole(candidates, candidateBytes, pack.dataLength)) packData(pack);
    return (position) => {
      const text = positions[position] ?? -1;
      if (text < 0 || (exact && exact[text] !== 1)) return undefined;
      return candidate[text] === 1 ? undefined : false;
    };
  }

  private loadPack(): ContentPack | null {
    if (!this.cacheFolder) return null;
    const pack = loadContentPack(join(this.cacheFolder, CONTENT_PACK_FILE));
    // A pack larger than the memory budget is not loaded whole: files are read one by one.
    return pack && pack.dataLength <= this.limits.maxCacheBytes ? pack : null;
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
      packReads: this.packReads,
      packBytes: this.pack?.data ? this.pack.data.length : 0,
      importGraphBuilt: this.graphBuilt,
      importGraphSource: this.graphSource,
    };
  }

  /** Drops everything kept in memory (contents, file list, import graph). */
  dispose(): void {
    this.cache.clear();
    this.pack = undefined;
    this.packLower = undefined;
    this.packAscii = undefined;
    this.packPositions = undefined;
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
