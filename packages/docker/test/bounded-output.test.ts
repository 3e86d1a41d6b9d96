import { describe, expect, it } from "vitest";
import { droppedBytes, FrameReader, HeadKeeper } from "../src/index.js";

// Docker's multiplexed exec stream, read as it comes: frames built here by the format's own
// definition (an 8-byte header: stream, three zeros, the payload's length big-endian), then fed
// to the reader cut at every possible place.
function frame(stream: 1 | 2, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

const payloads: [1 | 2, Buffer][] = [
  [1, Buffer.from("first line\n")],
  [2, Buffer.from("an error\n")],
  [1, Buffer.alloc(0)],
  [1, Buffer.from("naïve ünïcödé ✓\n")],
  [2, Buffer.from([0, 1, 2, 255])],
];
const wire = Buffer.concat(payloads.map(([stream, payload]) => frame(stream, payload)));

function read(chunks: Buffer[]) {
  const got: { 1: Buffer[]; 2: Buffer[] } = { 1: [], 2: [] };
  const reader = new FrameReader((stream, bytes) => got[stream].push(Buffer.from(bytes)));
  for (const chunk of chunks) reader.push(chunk);
  return { stdout: Buffer.concat(got[1]), stderr: Buffer.concat(got[2]) };
}

const expected = {
  stdout: Buffer.concat(payloads.filter(([stream]) => stream === 1).map(([, payload]) => payload)),
  stderr: Buffer.concat(payloads.filter(([stream]) => stream === 2).map(([, payload]) => payload)),
};

describe("FrameReader: Docker's multiplexed stream, frame by frame as the socket gives it", () => {
  it("gives each stream's bytes in order whether the wire comes whole, byte by byte, or cut at any one place", () => {
    expect(read([wire])).toEqual(expected);
    expect(read([...wire].map((byte) => Buffer.from([byte])))).toEqual(expected);
    for (let cut = 0; cut <= wire.length; cut += 1)
      expect(read([wire.subarray(0, cut), wire.subarray(cut)]), `cut at ${cut}`).toEqual(expected);
  });
});

describe("HeadKeeper: the head of a stream up to a cap, the rest counted", () => {
  it("keeps the first cap bytes across chunks and counts every byte", () => {
    const keeper = new HeadKeeper(10);
    for (const part of ["abc", "defgh", "ijklmnop", "", "qrstuvwxyz"]) keeper.write(Buffer.from(part));
    const kept = keeper.result();
    expect(kept.bytes.toString()).toBe("abcdefghij");
    expect(kept.totalBytes).toBe(26);
    expect(droppedBytes(kept)).toBe(16);
  });

  it("a flood costs the cap, not the flood: a gigabyte through a 64 KiB keeper", () => {
    const keeper = new HeadKeeper(64 * 1024);
    const chunk = Buffer.alloc(1 << 20, "y");
    for (let i = 0; i < 1024; i += 1) keeper.write(chunk);
    const kept = keeper.result();
    expect(kept.bytes.length).toBe(64 * 1024);
    expect(kept.totalBytes).toBe(2 ** 30);
  });

  it("a cap of 0 keeps nothing and still counts; a cap that is not a whole number is refused", () => {
    const keeper = new HeadKeeper(0);
    keeper.write(Buffer.from("abc"));
    expect(keeper.result()).toEqual({ bytes: Buffer.alloc(0), totalBytes: 3 });
    expect(() => new HeadKeeper(-1)).toThrow(/whole number/);
    expect(() => new HeadKeeper(1.5)).toThrow(/whole number/);
  });
});
