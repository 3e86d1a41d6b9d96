import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBuildStream } from "../src/build-events.js";

/** A build stream as the engine sends it: one JSON event per line, split across chunks anywhere. */
function engineStream(lines: string[], chunkBytes: number): Readable {
  const bytes = Buffer.from(lines.map((line) => `${line}\r\n`).join(""));
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
    })(),
  );
}

describe("readBuildStream", () => {
  it("gives each event once, keeps the last lines and the first error, whatever the chunking", async () => {
    const lines = [
      JSON.stringify({ stream: "Step 1/2 : FROM base\n" }),
      JSON.stringify({ stream: " ---> 1234\n" }),
      JSON.stringify({ aux: { ID: "sha256:abc" } }),
      JSON.stringify({ stream: "Step 2/2 : RUN false\n" }),
      JSON.stringify({ errorDetail: { code: 1, message: "failed" }, error: "The command returned 1" }),
      JSON.stringify({ error: "a second error" }),
    ];
    for (const chunk of [1, 7, 1000]) {
      const steps: string[] = [];
      const read = await readBuildStream(engineStream(lines, chunk), {
        tailLines: 2,
        onEvent: (event) => event.stream?.startsWith("Step") && steps.push(event.stream.trim()),
      });
      expect(steps).toEqual(["Step 1/2 : FROM base", "Step 2/2 : RUN false"]);
      expect(read).toEqual({
        tail: [" ---> 1234\n", "Step 2/2 : RUN false\n"],
        error: "The command returned 1",
        droppedBytes: 0,
      });
    }
  });

  it("event lines over the cap are dropped and counted, never parsed; the lines after them are read", async () => {
    const huge = JSON.stringify({ stream: "x".repeat(2_000_000) });
    // 20 lines of 2 MB each, past a 64 KiB line cap, then an ordinary line.
    const lines = [...Array(20).fill(huge), JSON.stringify({ stream: "Successfully built 1234\n" })];
    const read = await readBuildStream(engineStream(lines, 65_536), { maxLineBytes: 65_536 });
    expect(read.tail).toEqual(["Successfully built 1234\n"]);
    // Each dropped line's bytes, its \r included (the newline ends it).
    expect(read.droppedBytes).toBe(20 * (huge.length + 1));
    expect(read.error).toBeUndefined();
  });
});
