import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { decodeUtf8 } from "./ascii-text.js";
import { TopLevelSplitter } from "./top-level-splitter.js";

/** Receives a JSON document's top level one piece at a time, in document order. */
export interface JsonDocumentVisitor {
  /** One element of a top-level array named in `streamedArrays` ("messages", "trajectory"). */
  element(container: string, value: unknown): void;
  /** Any other top-level member, whole. */
  member(key: string, value: unknown): void;
}

export interface VisitJsonDocumentOptions {
  /** Top-level arrays to hand over element by element; elements are dropped once visited. */
  streamedArrays: readonly string[];
  /**
   * The other top-level members to hand over whole; the rest are skipped. (Naming them, rather
   * than taking every member, is what keeps the streamed arrays from being kept for a final
   * emit: the parser holds any value it is asked to emit until the value ends.)
   */
  members: readonly string[];
  /**
   * Files up to this size are read whole and parsed with JSON.parse (about 4× faster than the
   * streaming parser here); larger ones are streamed. Default 16 MiB.
   */
  maxWholeFileBytes?: number;
}

/** How a document was read. */
export interface VisitedDocument {
  bytes: number;
  streamed: boolean;
}

/** Default size up to which a JSON trajectory is read whole. */
export const DEFAULT_MAX_WHOLE_FILE_BYTES = 16 * 1024 * 1024;
/** Bytes read at a time when streaming: larger chunks are a little faster and hold more memory. */
const STREAM_CHUNK_BYTES = 1024 * 1024;

const BOM = 0xfeff;

/**
 * Reads a JSON document whose top level is an object, handing each element of the named
 * top-level arrays and each named top-level member to `visitor`, in document order, with
 * bounded memory for large files: above `maxWholeFileBytes` the file is read a chunk at a time
 * and split by `TopLevelSplitter`, each piece parsed by JSON.parse, so at most one array
 * element (one message, one SWE-agent step) or one other top-level member is in memory at a
 * time, whatever the file's size.
 * Both paths visit the same pieces in the same order.
 *
 * Errors: the file cannot be read, is not JSON, or its top level is not an object; the
 * message says which and where the parser stopped.
 */
export async function visitJsonDocument(
  file: string,
  visitor: JsonDocumentVisitor,
  options: VisitJsonDocumentOptions,
): Promise<VisitedDocument> {
  const limit = options.maxWholeFileBytes ?? DEFAULT_MAX_WHOLE_FILE_BYTES;
  const streamed = new Set(options.streamedArrays);
  const members = new Set(options.members);
  // Synchronous, as the reads below: an awaited stat per file left the process idle.
  const whole = readWholeIfAtMost(file, limit);
  if (whole.text !== undefined) {
    let text = whole.text;
    if (text.charCodeAt(0) === BOM) text = text.slice(1);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch (error) {
      throw new Error(`not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    text = "";
    if (typeof document !== "object" || document === null || Array.isArray(document)) {
      throw new Error(`the top level is ${Array.isArray(document) ? "an array" : typeof document}, not an object`);
    }
    for (const [key, value] of Object.entries(document)) {
      if (streamed.has(key)) {
        if (!Array.isArray(value))
          throw new Error(`"${key}" is ${value === null ? "null" : typeof value}, not an array`);
        for (const item of value) visitor.element(key, item);
      } else if (members.has(key)) visitor.member(key, value);
    }
    return { bytes: whole.bytes, streamed: false };
  }
  await streamDocument(file, visitor, streamed, members);
  return { bytes: whole.bytes, streamed: true };
}

/** Files up to this size are read into one kept buffer (readWholeIfAtMost). */
const KEPT_BUFFER_BYTES = 4 * 2 ** 20;
/**
 * The buffer whole files of up to 4 MiB are read into, one per thread, grown to the largest
 * such file: a new buffer per file costs its allocation and page faults every time.
 */
let keptBuffer = Buffer.allocUnsafe(0);

/**
 * The file's text when it has at most `limit` bytes (and its size either way). Up to 4 MiB
 * (most trajectories) the file is read into the kept buffer and decoded by decodeUtf8; larger
 * ones by readFileSync, whose buffer is freed at once.
 */
function readWholeIfAtMost(file: string, limit: number): { bytes: number; text?: string } {
  const fd = openSync(file, "r");
  try {
    const size = fstatSync(fd).size;
    if (size > limit) return { bytes: size };
    if (size > KEPT_BUFFER_BYTES) return { bytes: size, text: readFileSync(fd, "utf8") };
    if (keptBuffer.length < size)
      keptBuffer = Buffer.allocUnsafe(Math.min(Math.max(size, 2 * keptBuffer.length), KEPT_BUFFER_BYTES));
    let read = 0;
    while (read < size) {
      const got = readSync(fd, keptBuffer, read, size - read, read);
      if (got === 0) break;
      read += got;
    }
    return { bytes: size, text: decodeUtf8(keptBuffer.subarray(0, read)) };
  } finally {
    closeSync(fd);
  }
}

/** The first byte that is not whitespace (or a byte-order mark), to refuse a top level that is not an object before streaming. */
function firstSignificantByte(file: string): string | undefined {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer
      .subarray(0, bytesRead)
      .toString("utf8")
      .replace(/^\uFEFF/, "");
    return /\S/.exec(text)?.[0];
  } finally {
    closeSync(fd);
  }
}

async function streamDocument(
  file: string,
  visitor: JsonDocumentVisitor,
  streamed: ReadonlySet<string>,
  members: ReadonlySet<string>,
): Promise<void> {
  const first = firstSignificantByte(file);
  if (first === "[") throw new Error("the top level is an array, not an object");
  if (first !== "{")
    throw new Error(
      `not valid JSON: the top level must be an object, the file starts with ${JSON.stringify(first ?? "nothing")}`,
    );
  const parse = (bytes: Buffer): unknown => JSON.parse(decodeUtf8(bytes));
  // What the visitor threw (a schema error), or a streamed name that is no array, is passed
  // on as is, not as a JSON error.
  let refused: { error: unknown } | undefined;
  const deliver = (hand: () => void) => {
    try {
      hand();
    } catch (error) {
      refused = { error };
      throw error;
    }
  };
  const splitter = new TopLevelSplitter(streamed, members, {
    element: (container, bytes) => {
      const value = parse(bytes);
      deliver(() => visitor.element(container, value));
    },
    member: (key, bytes) => {
      const value = parse(bytes);
      deliver(() => {
        if (streamed.has(key)) throw new Error(`"${key}" is ${value === null ? "null" : typeof value}, not an array`);
        visitor.member(key, value);
      });
    },
  });
  // Read synchronously, a chunk at a time: the reads are sequential anyway, and each awaited
  // read of a stream cost more than the JSON work on its chunk.
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
    let first = true;
    for (;;) {
      const bytesRead = readSync(fd, chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      let bytes = chunk.subarray(0, bytesRead);
      // A UTF-8 byte-order mark is not JSON; JSON.parse's path drops it too.
      if (first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      first = false;
      // The splitter keeps what it needs of a chunk in its own buffer: the chunk can be reused.
      splitter.write(Buffer.from(bytes));
    }
    splitter.end();
  } catch (error) {
    if (refused) throw refused.error;
    const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").slice(0, 300);
    throw new Error(`not valid JSON (streamed, stopped near byte ${splitter.position}): ${reason}`);
  } finally {
    closeSync(fd);
  }
}
