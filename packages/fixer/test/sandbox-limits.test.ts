import { describe, expect, it } from "vitest";
import {
  countersSince,
  DEFAULT_PATCH_LIMITS,
  DEFAULT_SANDBOX_LIMITS,
  leftoverNote,
  limitNotes,
  parseSweep,
  patchOverLimitNote,
  readWindow,
  windowBytes,
} from "../src/index.js";

describe("the sweep's reading and the notes the model gets", () => {
  it("reads the counters of cgroup v1 and v2, the processes left and their commands; ignores other lines", () => {
    const v1 = parseSweep(
      "memory 2\nprocesses 17\ncpu-ns 5000000\ncommand python3 -m http.server 8000\ncommand sleep 99\nleft 2\nrounds 2\nsomething new\n",
    );
    expect(v1).toEqual({
      counters: { memory: 2, processes: 17, cpuThrottledUs: 5000 },
      left: 2,
      commands: ["python3 -m http.server 8000", "sleep 99"],
    });
    expect(parseSweep("memory 0\nprocesses 0\ncpu-us 12\nleft 0\nrounds 1\n")).toEqual({
      counters: { memory: 0, processes: 0, cpuThrottledUs: 12 },
      left: 0,
      commands: [],
    });
    expect(
      countersSince({ memory: 1, processes: 10, cpuThrottledUs: 5 }, { memory: 2, processes: 1034, cpuThrottledUs: 5 }),
    ).toEqual({ memory: 1, processes: 1024, cpuThrottledUs: 0 });
  });

  it("names the limit and its value when a command met it, and nothing when it did not", () => {
    const limits = { ...DEFAULT_SANDBOX_LIMITS, memoryMiB: 4096 };
    expect(limitNotes({ memory: 0, processes: 0, cpuThrottledUs: 99 }, limits)).toEqual([]);
    expect(limitNotes({ memory: 1, processes: 2500, cpuThrottledUs: 0 }, limits)).toEqual([
      "killed: memory limit 4,096 MiB (the kernel ended 1 process of this command)",
      "fork failed: process limit 1,024 (2,500 forks refused)",
    ]);
    expect(leftoverNote(0, [])).toBeUndefined();
    expect(leftoverNote(1, ["python3 -m http.server"])).toBe(
      "ended after the command: 1 process it left running (`python3 -m http.server`); every command starts with none",
    );
    expect(leftoverNote(1030, ["a", "b"])).toMatch(/1,030 processes it left running \(`a`, `b` and 1,028 more\)/);
  });

  it("says why a final diff is over the patch limits", () => {
    expect(patchOverLimitNote({ bytes: 3_000_000, oversized: [] }, DEFAULT_PATCH_LIMITS)).toBe(
      "the diff is 3,000,000 bytes, over the patch limit of 2,097,152 bytes",
    );
    expect(
      patchOverLimitNote({ bytes: null, oversized: [{ path: "big.bin", bytes: 314_572_800 }] }, DEFAULT_PATCH_LIMITS),
    ).toBe("the changes hold binary files over the limit of 1,048,576 bytes: big.bin (314,572,800 bytes)");
  });
});

// read_file's window is read in the container: lines from the start line, cut at windowBytes
// bytes. Cut that way (here with Buffer operations, as `tail -n +S | head -n N | head -c B`
// cuts), the window must be what the whole file gives, whatever the characters' widths.
describe("a window from a byte-capped slice equals the window of the whole file", () => {
  const caps = { maxLines: 150, maxChars: 10_000 };
  function slice(content: string, startLine: number, lines: number, maxBytes: number) {
    const bytes = Buffer.from(content, "utf8");
    let at = 0;
    for (let line = 1; line < startLine && at < bytes.length; line += 1) {
      const next = bytes.indexOf(10, at);
      at = next < 0 ? bytes.length : next + 1;
    }
    let end = at;
    for (let line = 0; line < lines && end < bytes.length; line += 1) {
      const next = bytes.indexOf(10, end);
      end = next < 0 ? bytes.length : next + 1;
    }
    const text = bytes.subarray(at, Math.min(end, at + maxBytes)).toString("utf8");
    const totalLines = content === "" ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
    return { text, firstLine: startLine, totalLines };
  }
  // Characters of 1, 2, 3 and 4 bytes (the last two UTF-16 units), lines short and very long.
  const alphabet = ["a", "é", "中", "😀", " ", "\t"];
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const line = (length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
  const files = [
    `${line(30_000)}\n${line(10)}\n`,
    Array.from({ length: 400 }, () => line(Math.floor(random() * 200))).join("\n"),
    `${"😀".repeat(6_000)}\nafter\n`,
    `${"中".repeat(12_000)}`,
    Array.from({ length: 300 }, () => line(Math.floor(random() * 3_000))).join("\n"),
  ];

  it("for every file and start line tried, with and without an end line", () => {
    for (const [index, content] of files.entries()) {
      const total = content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
      for (const startLine of [1, 2, 3, 50, 151, total].filter((n) => n <= total)) {
        for (const endLine of [undefined, startLine, startLine + 9, startLine + 500]) {
          const request = { startLine, ...(endLine !== undefined ? { endLine } : {}) };
          const lines = Math.min(endLine ?? Number.POSITIVE_INFINITY, startLine + caps.maxLines - 1) - startLine + 1;
          const whole = readWindow(content, request, caps);
          const cut = readWindow(slice(content, startLine, lines, windowBytes(caps)), request, caps);
          expect(cut, `file ${index}, ${JSON.stringify(request)}`).toEqual(whole);
        }
      }
    }
  });
});
