import type { FileRead } from "./file-read.js";
import { lineStartOffsets } from "./text-lines.js";

interface CachedText {
  bytes: Buffer;
  lastUsed: number;
  lineStarts?: Uint32Array;
  lower?: Buffer;
  lowerLineStarts?: Uint32Array;
  cost: number;
}

/**
 * A workspace's contents kept in memory, within a byte budget: each text file's bytes and what
 * is derived from them (line offsets, the lower-cased copy), least recently used dropped first;
 * and what a non-text file turned out to be (large, binary), which costs nothing to keep.
 */
export class TextCache {
  private readonly texts = new Map<string, CachedText>();
  private readonly kinds = new Map<string, Exclude<FileRead, { kind: "text" }>>();
  private clock = 0;
  /** Bytes held (contents and what is derived from them). */
  bytes = 0;
  /** Contents dropped to stay within the budget. */
  evictions = 0;

  constructor(private readonly maxBytes: number) {}

  get textFiles(): number {
    return this.texts.size;
  }

  /** What a read of `path` gave, when it is in memory. */
  get(path: string): FileRead | undefined {
    const text = this.texts.get(path);
    if (text) {
      text.lastUsed = ++this.clock;
      return { kind: "text", path, bytes: text.bytes, size: text.bytes.length };
    }
    return this.kinds.get(path);
  }

  /**
   * Keeps a read: a text file's bytes at `cost` bytes of the budget (0 for a view of contents
   * held elsewhere), or what a non-text file is.
   */
  remember(read: FileRead, cost?: number): void {
    if (read.kind !== "text") {
      this.kinds.set(read.path, read);
      return;
    }
    const entry: CachedText = { bytes: read.bytes, cost: cost ?? read.bytes.length, lastUsed: ++this.clock };
    if (entry.cost > this.maxBytes) return; // larger than the whole budget: used once, not kept
    const previous = this.texts.get(read.path);
    if (previous) this.bytes -= previous.cost; // two concurrent reads of one file
    this.texts.set(read.path, entry);
    this.bytes += entry.cost;
    this.evict(read.path);
  }

  /** Byte offsets of the lines of a text file (kept with its content). */
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
    if (cached?.bytes === bytes && cached.lower && cached.lowerLineStarts)
      return { lower: cached.lower, lineStarts: cached.lowerLineStarts };
    const lower = lowerCaseBytes(bytes);
    const lineStarts = lineStartOffsets(lower);
    if (cached?.bytes === bytes) {
      cached.lower = lower;
      cached.lowerLineStarts = lineStarts;
      this.grow(path, cached, lower === bytes ? lineStarts.byteLength : lower.length + lineStarts.byteLength);
    }
    return { lower, lineStarts };
  }

  clear(): void {
    this.texts.clear();
    this.kinds.clear();
    this.bytes = 0;
  }

  private grow(path: string, entry: CachedText, bytes: number): void {
    entry.cost += bytes;
    this.bytes += bytes;
    if (this.bytes > this.maxBytes) this.evict(path);
  }

  /**
   * When the cache is over its budget, drops the least recently used contents (never `keep`)
   * until it holds at most 90 % of it, so that a cache that stays full sorts rarely.
   */
  private evict(keep: string | undefined): void {
    if (this.bytes <= this.maxBytes) return;
    const target = Math.floor(this.maxBytes * 0.9);
    const byAge = [...this.texts.entries()]
      .filter(([path]) => path !== keep)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [path, entry] of byAge) {
      if (this.bytes <= target) break;
      this.texts.delete(path);
      this.bytes -= entry.cost;
      this.evictions += 1;
    }
  }
}

/** Lower-cased UTF-8 bytes; the same buffer when lower-casing changes nothing. */
function lowerCaseBytes(bytes: Buffer): Buffer {
  const text = bytes.toString("utf8");
  const lower = text.toLowerCase();
  if (lower === text && Buffer.byteLength(text) === bytes.length) return bytes;
  return Buffer.from(lower, "utf8");
}
