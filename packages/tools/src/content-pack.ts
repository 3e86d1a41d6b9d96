import { closeSync, existsSync, fstatSync, openSync, readSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { FileEntry } from "./file-listing.js";
import { readFileClassified } from "./file-reading.js";
import { SIGNATURE_BYTES, fillSignature } from "./trigram-signatures.js";
import { checkedList } from "./checked-list.js";

/**
 * The content pack of a cached tree: every text file's bytes in one file, with an index, so
 * that the first search of a new process reads one file instead of thousands (issue 18).
 * Built once when the tree is materialized and kept beside it (the tree is read-only and
 * keyed by commit, so the pack never goes stale). Layout: the 8 bytes `LOCLABP1`, the header's
 * length (u32, little-endian), the header (JSON: `contentPackHeaderSchema`), a table of two
 * little-endian doubles per file (offset into the contents, size in bytes), the trigram
 * signature of each text file (`SIGNATURE_BYTES` each, in text-file order; see
 * trigram-signatures.ts), then the file contents back to back. The numbers are binary so that
 * a new process validates only the paths as JSON (a schema over thousands of tuples cost more
 * than the search it serves).
 */
export const CONTENT_PACK_FILE = "contents.v2.pack";
const MAGIC = Buffer.from("LOCLABP2", "latin1");

export const contentPackHeaderSchema = z.object({
  format: z.literal("loclab-content-pack"),
  version: z.literal(2),
  /** Bytes of each text file's trigram signature. */
  signatureBytes: z.literal(SIGNATURE_BYTES),
  /** Files above this many bytes are recorded as `l` and read from the tree when needed. */
  maxFileBytes: z.number().int().positive(),
  paths: checkedList((value): value is string => typeof value === "string", "a string"),
  /** One letter per path. t: text stored at [offset, offset + size); b: binary (not stored); l: over the pack's size cap (not stored). */
  kinds: z.string().regex(/^[tbl]*$/),
});
export type ContentPackHeader = z.infer<typeof contentPackHeaderSchema>;

export interface PackedFile {
  kind: "t" | "b" | "l";
  offset: number;
  size: number;
  /** Position among the pack's text files (in offset order); -1 for others. */
  text: number;
}

/**
 * A loaded pack: the index and the signatures, read when it is loaded; the contents stay on
 * disk until asked for. A search whose signatures rule out all but a few files reads only
 * those (`packedBytes`, one positioned read each); work that scans every file (short or
 * case-insensitive needles) reads the contents whole once (`packData`), and files are views
 * of that buffer from then on. A new process thus reads a few MB, not the whole tree, for its
 * first search (issue 18).
 */
export interface ContentPack {
  /** The pack file. */
  file: string;
  maxFileBytes: number;
  files: ReadonlyMap<string, PackedFile>;
  /** Where the contents start in the pack file, and their length in bytes. */
  dataStart: number;
  dataLength: number;
  /** The pack file's identity when it was loaded: a positioned read from a pack replaced since is refused. */
  identity: { dev: number; ino: number; size: number; mtimeMs: number };
  /** The whole contents, once `packData` has read them. */
  data: Buffer | undefined;
  /** Start and end offsets of the text files, in offset order (for mapping a match to its file). */
  textStarts: Float64Array;
  textEnds: Float64Array;
  /** The text files' trigram signatures, `SIGNATURE_BYTES` each, in text-file order. */
  signatures: Buffer;
}

/** The pack's contents whole, read on first need and kept. */
export function packData(pack: ContentPack): Buffer {
  pack.data ??= readPackRange(pack, 0, pack.dataLength);
  return pack.data;
}

/** The bytes of one packed text file: a view of the contents when they are loaded, else one positioned read. */
export function packedBytes(pack: ContentPack, packed: PackedFile): Buffer {
  if (pack.data) return pack.data.subarray(packed.offset, packed.offset + packed.size);
  return readPackRange(pack, packed.offset, packed.size);
}

function readPackRange(pack: ContentPack, offset: number, size: number): Buffer {
  const fd = openSync(pack.file, "r");
  try {
    const { dev, ino, size: fileSize, mtimeMs } = fstatSync(fd);
    const known = pack.identity;
    if (dev !== known.dev || ino !== known.ino || fileSize !== known.size || mtimeMs !== known.mtimeMs) {
      throw new Error(`${pack.file}: the content pack changed on disk since it was loaded; open the workspace again`);
    }
    const bytes = Buffer.allocUnsafe(size);
    readFully(fd, bytes, pack.dataStart + offset, pack.file);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** Fills `into` from `position` of `fd`; a short file is a truncated pack. */
function readFully(fd: number, into: Buffer, position: number, file: string): void {
  let done = 0;
  while (done < into.length) {
    const read = readSync(fd, into, done, into.length - done, position + done);
    if (read === 0)
      throw new Error(
        `${file}: truncated content pack (ends before byte ${position + into.length}); remove it to rebuild it`,
      );
    done += read;
  }
}

/** The text file (its position in text-file order) whose range holds byte `at` of the contents: the last start <= at. */
export function textFileAt(pack: ContentPack, at: number): number {
  const { textStarts } = pack;
  let lo = 0;
  let hi = textStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((textStarts[mid] as number) <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The text files of a pack that hold `needle`: one scan of the whole pack instead of one per
 * file (a match must lie inside one file; after a file's first match the scan jumps to the
 * next file). `haystack` is `packData(pack)` or a same-length transform of it. Returns one flag
 * per text file.
 */
export function packFilesHolding(pack: ContentPack, haystack: Buffer, needle: Buffer): Uint8Array {
  const { textStarts, textEnds } = pack;
  const holds = new Uint8Array(textStarts.length);
  let at = haystack.indexOf(needle);
  while (at >= 0) {
    const lo = textFileAt(pack, at);
    const end = textEnds[lo] as number;
    if (at + needle.length <= end) {
      holds[lo] = 1;
      at = haystack.indexOf(needle, end);
    } else at = haystack.indexOf(needle, at + 1);
  }
  return holds;
}

/**
 * Writes the pack of the regular files `files` under `root` to `folder/CONTENT_PACK_FILE`
 * (through a temporary file renamed into place, so a crash never leaves half a pack), unless
 * it is there already. Files that cannot be read (gone, not regular) are left out: a read
 * then goes to the tree and reports them as the tree does. Returns the pack's path.
 */
export function writeContentPack(options: {
  folder: string;
  root: string;
  files: readonly FileEntry[];
  maxFileBytes: number;
}): string {
  const target = join(options.folder, CONTENT_PACK_FILE);
  if (existsSync(target)) return target;
  const header: ContentPackHeader = {
    format: "loclab-content-pack",
    version: 2,
    signatureBytes: SIGNATURE_BYTES,
    maxFileBytes: options.maxFileBytes,
    paths: [],
    kinds: "",
  };
  const kinds: string[] = [];
  const table: number[] = [];
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const entry of options.files) {
    if (entry.kind !== "file") continue;
    // No link is followed: a materialized tree's regular files are real files in real folders.
    const read = readFileClassified(entry.path, join(options.root, entry.path), options.maxFileBytes, {
      noFollow: true,
    });
    if (!read || read.kind === "missing") continue;
    header.paths.push(entry.path);
    if (read.kind === "text") {
      kinds.push("t");
      table.push(offset, read.size);
      chunks.push(read.bytes);
      offset += read.size;
    } else {
      kinds.push(read.kind === "binary" ? "b" : "l");
      table.push(0, read.size);
    }
  }
  header.kinds = kinds.join("");
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  const tableBytes = Buffer.alloc(8 * table.length);
  table.forEach((value, i) => tableBytes.writeDoubleLE(value, 8 * i));
  const signatures = Buffer.alloc(SIGNATURE_BYTES * chunks.length);
  chunks.forEach((chunk, i) =>
    fillSignature(chunk, signatures.subarray(SIGNATURE_BYTES * i, SIGNATURE_BYTES * (i + 1))),
  );
  const temporary = `${target}.tmp-${process.pid}-${Math.random().toString(16).slice(2)}`;
  try {
    writeFileSync(temporary, Buffer.concat([MAGIC, length, headerBytes, tableBytes, signatures, ...chunks]));
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
  return target;
}

/**
 * Loads a pack written by `writeContentPack`; undefined when there is none. A damaged pack
 * (bad magic, truncated, a header that fails its schema) throws, naming the file and what
 * is wrong: remove it (`loclab cache clear`) and it is built again.
 */
export function loadContentPack(file: string): ContentPack | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const { dev, ino, size: fileSize, mtimeMs } = fstatSync(fd);
    const prefix = Buffer.alloc(12);
    if (fileSize < 12) throw new Error(`${file}: not a loclab content pack (bad magic); remove it to rebuild it`);
    readFully(fd, prefix, 0, file);
    if (!prefix.subarray(0, 8).equals(MAGIC))
      throw new Error(`${file}: not a loclab content pack (bad magic); remove it to rebuild it`);
    const headerLength = prefix.readUInt32LE(8);
    if (12 + headerLength > fileSize)
      throw new Error(
        `${file}: truncated content pack (header of ${headerLength} bytes, file of ${fileSize}); remove it to rebuild it`,
      );
    const headerBytes = Buffer.allocUnsafe(headerLength);
    readFully(fd, headerBytes, 12, file);
    const parsed = contentPackHeaderSchema.safeParse(JSON.parse(headerBytes.toString("utf8")));
    if (!parsed.success)
      throw new Error(
        `${file}: invalid content pack header (${parsed.error.issues[0]?.message ?? "schema"} at ${parsed.error.issues[0]?.path.join(".")}); remove it to rebuild it`,
      );
    const { paths, kinds } = parsed.data;
    if (kinds.length !== paths.length)
      throw new Error(
        `${file}: invalid content pack header (${paths.length} paths, ${kinds.length} kinds); remove it to rebuild it`,
      );
    const tableStart = 12 + headerLength;
    const textCount = kinds.split("t").length - 1;
    const tableBytes = 16 * paths.length;
    const dataStart = tableStart + tableBytes + SIGNATURE_BYTES * textCount;
    if (dataStart > fileSize)
      throw new Error(
        `${file}: truncated content pack (table and signatures of ${paths.length} files past the end); remove it to rebuild it`,
      );
    // The table and the signatures, in one read.
    const indexBytes = Buffer.allocUnsafe(dataStart - tableStart);
    readFully(fd, indexBytes, tableStart, file);
    const signatures = indexBytes.subarray(tableBytes);
    const dataLength = fileSize - dataStart;
    const files = new Map<string, PackedFile>();
    const starts: number[] = [];
    const ends: number[] = [];
    let previousEnd = 0;
    for (let i = 0; i < paths.length; i += 1) {
      const path = paths[i] as string;
      const kind = kinds[i] as PackedFile["kind"];
      const offset = indexBytes.readDoubleLE(16 * i);
      const size = indexBytes.readDoubleLE(16 * i + 8);
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size) || offset < 0 || size < 0)
        throw new Error(
          `${file}: invalid content pack (${path}: offset ${offset}, size ${size}); remove it to rebuild it`,
        );
      if (kind === "t") {
        if (offset + size > dataLength)
          throw new Error(
            `${file}: truncated content pack (${path} ends at byte ${offset + size} of ${dataLength}); remove it to rebuild it`,
          );
        if (offset < previousEnd)
          throw new Error(
            `${file}: invalid content pack (${path} starts at byte ${offset}, inside the file before it); remove it to rebuild it`,
          );
        previousEnd = offset + size;
        files.set(path, { kind, offset, size, text: starts.length });
        starts.push(offset);
        ends.push(offset + size);
      } else files.set(path, { kind, offset, size, text: -1 });
    }
    return {
      file,
      maxFileBytes: parsed.data.maxFileBytes,
      files,
      dataStart,
      dataLength,
      identity: { dev, ino, size: fileSize, mtimeMs },
      data: undefined,
      textStarts: Float64Array.from(starts),
      textEnds: Float64Array.from(ends),
      signatures,
    };
  } finally {
    closeSync(fd);
  }
}
