import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { FileEntry } from "./file-listing.js";
import { readFileClassified } from "./file-reading.js";
import { SIGNATURE_BYTES, fillSignature } from "./trigram-signatures.js";

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
  paths: z.array(z.string()),
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

/** A loaded pack: the index, and the contents as one buffer (files are views of it, never copies). */
export interface ContentPack {
  maxFileBytes: number;
  files: ReadonlyMap<string, PackedFile>;
  data: Buffer;
  /** Start and end offsets of the text files, in offset order (for mapping a match to its file). */
  textStarts: Float64Array;
  textEnds: Float64Array;
  /** The text files' trigram signatures, `SIGNATURE_BYTES` each, in text-file order. */
  signatures: Buffer;
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
 * next file). `haystack` is `pack.data` or a same-length transform of it. Returns one flag
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
export function writeContentPack(options: { folder: string; root: string; files: readonly FileEntry[]; maxFileBytes: number }): string {
  const target = join(options.folder, CONTENT_PACK_FILE);
  if (existsSync(target)) return target;
  const header: ContentPackHeader = { format: "loclab-content-pack", version: 2, signatureBytes: SIGNATURE_BYTES, maxFileBytes: options.maxFileBytes, paths: [], kinds: "" };
  const kinds: string[] = [];
  const table: number[] = [];
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const entry of options.files) {
    if (entry.kind !== "file") continue;
    // No link is followed: a materialized tree's regular files are real files in real folders.
    const read = readFileClassified(entry.path, join(options.root, entry.path), options.maxFileBytes, { noFollow: true });
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
  chunks.forEach((chunk, i) => fillSignature(chunk, signatures.subarray(SIGNATURE_BYTES * i, SIGNATURE_BYTES * (i + 1))));
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
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  if (bytes.length < 12 || !bytes.subarray(0, 8).equals(MAGIC)) throw new Error(`${file}: not a loclab content pack (bad magic); remove it to rebuild it`);
  const headerLength = bytes.readUInt32LE(8);
  if (12 + headerLength > bytes.length) throw new Error(`${file}: truncated content pack (header of ${headerLength} bytes, file of ${bytes.length}); remove it to rebuild it`);
  const parsed = contentPackHeaderSchema.safeParse(JSON.parse(bytes.subarray(12, 12 + headerLength).toString("utf8")));
  if (!parsed.success) throw new Error(`${file}: invalid content pack header (${parsed.error.issues[0]?.message ?? "schema"} at ${parsed.error.issues[0]?.path.join(".")}); remove it to rebuild it`);
  const { paths, kinds } = parsed.data;
  if (kinds.length !== paths.length) throw new Error(`${file}: invalid content pack header (${paths.length} paths, ${kinds.length} kinds); remove it to rebuild it`);
  const tableStart = 12 + headerLength;
  const textCount = kinds.split("t").length - 1;
  const signaturesStart = tableStart + 16 * paths.length;
  const dataStart = signaturesStart + SIGNATURE_BYTES * textCount;
  if (dataStart > bytes.length) throw new Error(`${file}: truncated content pack (table and signatures of ${paths.length} files past the end); remove it to rebuild it`);
  const signatures = bytes.subarray(signaturesStart, dataStart);
  const data = bytes.subarray(dataStart);
  const files = new Map<string, PackedFile>();
  const starts: number[] = [];
  const ends: number[] = [];
  let previousEnd = 0;
  for (let i = 0; i < paths.length; i += 1) {
    const path = paths[i] as string;
    const kind = kinds[i] as PackedFile["kind"];
    const offset = bytes.readDoubleLE(tableStart + 16 * i);
    const size = bytes.readDoubleLE(tableStart + 16 * i + 8);
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(size) || offset < 0 || size < 0) throw new Error(`${file}: invalid content pack (${path}: offset ${offset}, size ${size}); remove it to rebuild it`);
    if (kind === "t") {
      if (offset + size > data.length) throw new Error(`${file}: truncated content pack (${path} ends at byte ${offset + size} of ${data.length}); remove it to rebuild it`);
      if (offset < previousEnd) throw new Error(`${file}: invalid content pack (${path} starts at byte ${offset}, inside the file before it); remove it to rebuild it`);
      previousEnd = offset + size;
      files.set(path, { kind, offset, size, text: starts.length });
      starts.push(offset);
      ends.push(offset + size);
    } else files.set(path, { kind, offset, size, text: -1 });
  }
  return { maxFileBytes: parsed.data.maxFileBytes, files, data, textStarts: Float64Array.from(starts), textEnds: Float64Array.from(ends), signatures };
}
