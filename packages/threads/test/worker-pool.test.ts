// The pool against real worker threads (the fixtures import the built package, as a compiled
// worker of another package does).
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkThreadCount, WorkerPool } from "../src/index.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
class Lost extends Error {}
const pools: WorkerPool<string, string>[] = [];
const poolOf = (file: string, threads = 1) => {
  const pool = new WorkerPool<string, string>({
    file: fixture(file),
    threads,
    lost: (text, reason) => new Lost(`${text}: ${reason}`),
  });
  pools.push(pool);
  return pool;
};
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.close();
});

describe("WorkerPool", () => {
  it("answers every request, in any number, on its threads (started on first use)", async () => {
    const pool = poolOf("echo-worker.mjs", 2);
    expect(pool.started).toBe(false);
    const words = Array.from({ length: 9 }, (_, i) => `word${i}`);
    expect(await Promise.all(words.map((word) => pool.run(word)))).toEqual(
      words.map((word) => `${word.toUpperCase()} (ready)`),
    );
    expect(pool.started).toBe(true);
  });

  it("fails a request whose handler throws with its message, and the thread goes on", async () => {
    const pool = poolOf("echo-worker.mjs");
    await expect(pool.run("throw")).rejects.toThrow("bad request");
    await expect(pool.run("throw")).rejects.not.toBeInstanceOf(Lost);
    expect(await pool.run("after")).toBe("AFTER (ready)");
  });

  it("fails the requests of a thread that stops with the lost error, and starts a new thread for the next", async () => {
    const pool = poolOf("echo-worker.mjs");
    const exit = pool.run("exit");
    const behind = pool.run("behind"); // in flight on the same thread (two per thread)
    await expect(exit).rejects.toThrow(new Lost("exit: exit code 3"));
    await expect(behind).rejects.toBeInstanceOf(Lost);
    expect(await pool.run("next")).toBe("NEXT (ready)");
  });

  it("fails every request as lost when the thread's setup fails", async () => {
    const pool = poolOf("broken-setup-worker.mjs");
    await expect(pool.run("a")).rejects.toThrow(new Lost("a: no grammar here"));
  });

  it("close fails what is queued or in flight with the lost error", async () => {
    const pool = poolOf("echo-worker.mjs");
    const requests = ["a", "b", "c"].map((text) => pool.run(text).catch((error: unknown) => error));
    await pool.close();
    for (const [i, text] of ["a", "b", "c"].entries())
      expect(await requests[i]).toEqual(new Lost(`${text}: the pool was closed`));
  });

  it("refuses a thread count that is not a whole number ≥ 1, naming the option", () => {
    expect(() => poolOf("echo-worker.mjs", 0)).toThrow("threads: 0 is not a whole number ≥ 1");
    expect(() => checkThreadCount(1.5, "parseThreads")).toThrow("parseThreads: 1.5 is not a whole number ≥ 1");
  });
});
