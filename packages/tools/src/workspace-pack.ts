import { isAscii } from "node:buffer";
import { join } from "node:path";
import { asciiLowerCase, filesLowerCasedExactly } from "./case-folding.js";
import {
  CONTENT_PACK_FILE,
  type ContentPack,
  loadContentPack,
  packData,
  packFilesHolding,
  packedBytes,
} from "./content-pack.js";
import type { FileEntry } from "./file-listing.js";
import type { FileRead } from "./file-read.js";
import { needleBits, SIGNATURE_BYTES, signatureHas } from "./trigram-signatures.js";

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

/**
 * A workspace's content pack (`CONTENT_PACK_FILE` in its cache folder, written by
 * `writeContentPack`): every text file of a tree that never changes, with trigram signatures,
 * loaded on first use when it fits the memory budget. It serves reads without the file system
 * and tells a search which files cannot hold a needle.
 */
export class WorkspacePack {
  private pack: ContentPack | null | undefined;
  /** The pack with A–Z lower-cased (same length), for case-insensitive filtering. */
  private lower: Buffer | undefined;
  /** Per packed text file, 1 when `lower` finds exactly the ASCII needles that full lower-casing would. */
  private ascii: Uint8Array | undefined;
  /** Per file of the listing, its text file in the pack (-1: not a packed text file within maxFileBytes). */
  private positions: Int32Array | undefined;
  /** Files served from the pack. */
  reads = 0;

  constructor(
    private readonly cacheFolder: string | undefined,
    private readonly maxCacheBytes: number,
  ) {}

  /** Bytes of the pack's contents read whole (0 until a search needed them). */
  get bytesLoaded(): number {
    return this.pack?.data ? this.pack.data.length : 0;
  }

  /**
   * A file from the pack, when it holds it: what a read gives, and what keeping a text costs the
   * cache (a view of contents loaded whole costs nothing; a file read from the pack on its own is
   * a copy, and counts as one).
   */
  file(path: string, maxFileBytes: number, root: string): { read: FileRead; cost?: number } | undefined {
    const pack = this.loaded();
    const packed = pack?.files.get(path);
    if (!pack || !packed) return undefined;
    if (packed.size > maxFileBytes) {
      const large: FileRead = { kind: "large", path, size: packed.size, absolutePath: join(root, path) };
      return { read: large };
    }
    if (packed.kind === "l") return undefined; // over the pack's cap but within this workspace's: read from the tree
    this.reads += 1;
    if (packed.kind === "b") {
      const binary: FileRead = { kind: "binary", path, size: packed.size };
      return { read: binary };
    }
    const loaded = pack.data !== undefined;
    const bytes = packedBytes(pack, packed);
    // A view of the loaded contents costs only what is derived from it later; a file read
    // from the pack on its own is a copy, and counts as one.
    return { read: { kind: "text", path, bytes, size: bytes.length }, cost: loaded ? 0 : bytes.length };
  }

  /**
   * For search: a test, by a file's position in `entries`, that says false for a file whose
   * packed text cannot hold `needle` (by its trigram signature, or for needles under three bytes
   * by one scan of the whole pack), and undefined when the file must be searched or the pack
   * cannot tell (no pack; the file is not a packed text file within `maxFileBytes`; ignoring
   * case, a needle that is not ASCII, or a file holding one of the two characters whose lower
   * case is ASCII, U+0130 and U+212A).
   */
  filter(
    needle: Buffer,
    ignoreCase: boolean,
    entries: readonly FileEntry[],
    maxFileBytes: number,
  ): ((position: number) => boolean | undefined) | undefined {
    const pack = this.loaded();
    if (!pack || (ignoreCase && !isAscii(needle))) return undefined;
    // Per file of the listing (by position), its text file in the pack, or -1.
    if (!this.positions) {
      this.positions = Int32Array.from(entries, (entry) => {
        const packed = entry.kind === "file" ? pack.files.get(entry.path) : undefined;
        return packed && packed.text >= 0 && packed.size <= maxFileBytes ? packed.text : -1;
      });
    }
    const positions = this.positions;
    const exact = ignoreCase ? (this.ascii ??= filesLowerCasedExactly(pack)) : undefined;
    const bits = needleBits(needle);
    // Three bytes or more: the trigram signatures decide, without reading the contents.
    // Shorter: one scan of the whole pack (lower-cased once, for case-insensitive needles).
    if (!bits) {
      const holds = packFilesHolding(
        pack,
        ignoreCase ? (this.lower ??= asciiLowerCase(packData(pack))) : packData(pack),
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

  private loaded(): ContentPack | null {
    if (this.pack !== undefined) return this.pack;
    if (!this.cacheFolder) return (this.pack = null);
    const pack = loadContentPack(join(this.cacheFolder, CONTENT_PACK_FILE));
    // A pack larger than the memory budget is not loaded whole: files are read one by one.
    this.pack = pack && pack.dataLength <= this.maxCacheBytes ? pack : null;
    return this.pack;
  }

  dispose(): void {
    this.pack = undefined;
    this.lower = undefined;
    this.ascii = undefined;
    this.positions = undefined;
  }
}
