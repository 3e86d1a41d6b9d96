import { createReadStream } from "node:fs";
import { open, readFile, stat } from "node:fs/promises";
import { JSONParser } from "@streamparser/json";

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
const STREAM_CHUNK_BYTES = 256 * 1024;

const BOM = 0xfeff;

/**
 * Reads a JSON document whose top level is an object, handing each element of the named
 * top-level arrays and each named top-level member to `visitor`, in document order, with
 * bounded memory for large files: above `maxWholeFileBytes` the file is streamed through
 * @streamparser/json with `keepStack: false`, so at most one array element (one message, one
 * SWE-agent step) or one other top-level member is in memory at a time, whatever the file's
 * size (the parser itself is not given the whole streamed arrays to emit: see `members`).
 * Both paths visit the same pieces in the same order.
 *
 * Errors: the file cannot be read, is not JSON, or its top level is not an object; the
 * message says which and where the parser stopped.
 */
export async function visitJsonDocument(file: string, visitor: JsonDocumentVisitor, options: VisitJsonDocumentOptions): Promise<VisitedDocument> {
  const { size } = await stat(file);
  const limit = options.maxWholeFileBytes ?? DEFAULT_MAX_WHOLE_FILE_BYTES;
  const streamed = new Set(options.streamedArrays);
  const members = new Set(options.members);
  if (size <= limit) {
    let text = await readFile(file, "utf8");
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
        if (!Array.isArray(value)) throw new Error(`"${key}" is ${value === null ? "null" : typeof value}, not an array`);
        for (const item of value) visitor.element(key, item);
      } else if (members.has(key)) visitor.member(key, value);
    }
    return { bytes: size, streamed: false };
  }
  await streamDocument(file, visitor, streamed, members);
  return { bytes: size, streamed: true };
}

/** The first byte that is not whitespace (or a byte-order mark), to refuse a top level that is not an object before streaming. */
async function firstSignificantByte(file: string): Promise<string | undefined> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString("utf8").replace(/^\uFEFF/, "");
    return /\S/.exec(text)?.[0];
  } finally {
    await handle.close();
  }
}

async function streamDocument(file: string, visitor: JsonDocumentVisitor, streamed: ReadonlySet<string>, members: ReadonlySet<string>): Promise<void> {
  const first = await firstSignificantByte(file);
  if (first === "[") throw new Error("the top level is an array, not an object");
  if (first !== "{") throw new Error(`not valid JSON: the top level must be an object, the file starts with ${JSON.stringify(first ?? "nothing")}`);
  const paths = [...[...streamed].map((name) => `$.${name}.*`), ...[...members].filter((name) => !streamed.has(name)).map((name) => `$.${name}`)];
  const parser = new JSONParser({ paths, keepStack: false });
  let failure: Error | undefined;
  // What the visitor threw (a schema error): passed on as is, not as a JSON error.
  let refused: { error: unknown } | undefined;
  let bytesRead = 0;
  parser.onError = (error) => {
    failure ??= error;
  };
  parser.onValue = ({ value, key, stack }) => {
    if (failure || refused) return;
    try {
      if (stack.length === 2) {
        const container = stack[1]?.key;
        if (typeof container === "string") visitor.element(container, value);
      } else if (stack.length === 1 && typeof key === "string") {
        visitor.member(key, value);
      }
    } catch (error) {
      refused = { error };
    }
  };
  const input = createReadStream(file, { highWaterMark: STREAM_CHUNK_BYTES });
  try {
    let first = true;
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let bytes = chunk;
      // A UTF-8 byte-order mark is not JSON; JSON.parse's path drops it too.
      if (first && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      first = false;
      parser.write(bytes);
      bytesRead += chunk.length;
      if (failure || refused) break;
    }
    if (!failure && !refused && !parser.isEnded) parser.end();
  } catch (error) {
    failure ??= error instanceof Error ? error : new Error(String(error));
  } finally {
    input.destroy();
  }
  if (refused) throw refused.error;
  if (failure) {
    const reason = failure.message.replace(/\s+/g, " ").slice(0, 300);
    throw new Error(`not valid JSON (streamed, stopped near byte ${bytesRead}): ${reason}`);
  }
}
