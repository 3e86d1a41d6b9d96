import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  analyzeRealTrajectories,
  defaultSummaryThreads,
  MIN_THREADED_RUN_BYTES_WARM,
  type RunRead,
  readRun,
  SummaryPool,
  SummaryThreadLost,
  summaryThreadsAvailable,
} from "@loclab/analysis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDir } from "./helpers.js";

// readRun on worker threads (issue 18, trajectories): the built package (dist) has the compiled
// worker, so these tests run the threads for real. Whatever the number of threads, or a thread
// lost on the way, the result must be the one-thread result: same summaries in the same order,
// same problems, same counts.

/** A run read, without the number of threads that read it: what must not depend on it. */
function result(read: RunRead): Omit<RunRead, "threads"> {
  const { threads: _threads, ...rest } = read;
  return rest;
}

// Heap limits no thread can load the readers in: every thread it starts runs out of memory.
const STARVED = { maxOldGenerationSizeMb: 2, maxYoungGenerationSizeMb: 1 };

describe("reading trajectories on worker threads", () => {
  it("is available from the built package", () => {
    expect(summaryThreadsAvailable()).toBe(true);
  });

  it("gives the four real runs' analysis exactly as one thread does", async () => {
    const one = await analyzeRealTrajectories({ dataDir, read: { threads: 1 } });
    const three = await analyzeRealTrajectories({ dataDir, read: { threads: 3 } });
    expect(one.runs.map((run) => run.files)).toEqual([41, 41, 41, 41]);
    expect(one.runs.map((run) => run.threads)).toEqual([1, 1, 1, 1]);
    expect(three.runs.map((run) => run.threads)).toEqual([3, 3, 3, 3]);
    expect({ ...three, runs: three.runs.map(result) }).toEqual({ ...one, runs: one.runs.map(result) });
  });

  describe("a run folder with a broken file and a repeated instance", () => {
    let root: string;
    beforeAll(() => {
      // A copy of a real run (in a temp folder, deleted after), with two files added: one that
      // is not JSON and one that names an instance another file names too.
      root = mkdtempSync(join(tmpdir(), "loclab-threads-"));
      cpSync(join(dataDir, "trajectories", "mini-swe-agent_deepseek-chat_lite"), root, { recursive: true });
      const first = readdirSync(root)
        .filter((name) => name.includes("__"))
        .sort()[0] as string;
      mkdirSync(join(root, "zz__broken-1"));
      writeFileSync(join(root, "zz__broken-1", "zz__broken-1.traj.json"), "{ not json");
      cpSync(join(root, first), join(root, "zz__again"), { recursive: true });
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it("reports the same problems in the same order, and the same progress", async () => {
      const progress = (threads: number) => {
        const seen: number[] = [];
        return { threads, onTrajectory: (entry: { index: number }) => seen.push(entry.index), seen };
      };
      const spec = { name: "copy", format: "mini-swe-agent" as const, dir: root };
      const oneOptions = progress(1);
      const twoOptions = progress(2);
      const one = await readRun(spec, oneOptions);
      const two = await readRun(spec, twoOptions);
      expect(
        one.problems.some(
          (problem) => problem.path.endsWith("zz__broken-1.traj.json") && problem.reason.startsWith("not valid JSON"),
        ),
      ).toBe(true);
      expect(one.problems.some((problem) => problem.reason.includes("is also in"))).toBe(true);
      expect(two.threads).toBe(2);
      expect(result(two)).toEqual(result(one));
      expect(twoOptions.seen).toEqual(oneOptions.seen);
      expect(twoOptions.seen).toEqual([...oneOptions.seen.keys()]);
    });
  });

  it("reads a file again in the calling thread when its thread runs out of memory", async () => {
    const spec = {
      name: "swe",
      format: "swe-agent" as const,
      dir: join(dataDir, "trajectories", "swe-agent_gpt4_lite"),
    };
    const one = await readRun(spec, { threads: 1 });
    const starved = await readRun(spec, { threads: 2, threadLimits: STARVED });
    expect(one.files).toBeGreaterThan(40);
    expect(result(starved)).toEqual(result(one));
  });

  it("fails a file whose thread stopped with SummaryThreadLost, and starts a new thread for the next", async () => {
    const pool = new SummaryPool({ threads: 1, resourceLimits: STARVED });
    try {
      const dir = join(dataDir, "trajectories", "swe-agent_gpt4_lite");
      const files = readdirSync(dir, { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".traj"))
        .slice(0, 2);
      expect(files).toHaveLength(2);
      for (const file of files) {
        const error = await pool
          .summarize({ path: join(dir, file), format: "swe-agent", readOptions: {}, summaryOptions: {} })
          .then(
            () => undefined,
            (reason: unknown) => reason,
          );
        expect(error).toBeInstanceOf(SummaryThreadLost);
        expect((error as Error).message).toContain(join(dir, file));
        expect((error as Error).message).toMatch(/the thread reading it stopped/);
      }
    } finally {
      await pool.close();
    }
  });

  it("by default reads a small run in this thread, and a run of 16 MiB or more on the threads once they are started", async () => {
    const threads = defaultSummaryThreads();
    const swe = {
      name: "swe",
      format: "swe-agent" as const,
      dir: join(dataDir, "trajectories", "swe-agent_gpt4_lite"),
    };
    const mini = {
      name: "mini",
      format: "mini-swe-agent" as const,
      dir: join(dataDir, "trajectories", "mini-swe-agent_deepseek-chat_lite"),
    };
    const small = await readRun(swe);
    expect(small.bytes).toBeLessThan(MIN_THREADED_RUN_BYTES_WARM);
    expect(small.threads).toBe(1);
    await readRun(swe, { threads }); // starts the process's pool of the default size
    const large = await readRun(mini);
    expect(large.bytes).toBeGreaterThanOrEqual(MIN_THREADED_RUN_BYTES_WARM);
    expect(large.threads).toBe(threads);
    expect(result(large)).toEqual(result(await readRun(mini, { threads: 1 })));
  });

  it("refuses a number of threads that is not a whole number ≥ 1", async () => {
    const spec = {
      name: "swe",
      format: "swe-agent" as const,
      dir: join(dataDir, "trajectories", "swe-agent_gpt4_lite"),
    };
    await expect(readRun(spec, { threads: 0 })).rejects.toThrow("threads: 0 is not a whole number ≥ 1");
    await expect(readRun(spec, { threads: 1.5 })).rejects.toThrow("threads: 1.5 is not a whole number ≥ 1");
  });
});
