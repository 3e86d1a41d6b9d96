import { describe, expect, it } from "vitest";
import { drainOverPool, type EndpointLease, type EndpointProbe, EndpointPool, parseRunSpec } from "../src/index.js";

// The one dispatch loop (a run's attempts, FGL's scoring) over a pool whose probes the test
// gives: order, a retried job going first and elsewhere, stopping, the pool giving up.
function pool(count: number, probe: (index: number) => EndpointProbe = () => ({ ok: true }), pauseMs = 60_000) {
  const list = parseRunSpec({
    benchmark: "lite",
    endpoints: Array.from({ length: count }, (_, i) => ({ baseURL: `http://127.0.0.1:${8000 + i}/v1`, model: "m" })),
    repos: "r",
    out: "o",
  }).endpoints;
  return new EndpointPool(list, {
    breakerFailures: 3,
    probeMs: 5,
    healthMs: 60_000,
    pauseMs,
    probe: async (endpoint) => probe(list.indexOf(endpoint)),
  });
}
const tick = (ms = 1) => new Promise((resolve) => setTimeout(resolve, ms));

describe("drainOverPool", () => {
  it("runs every job once, in order, one lease each, at most one per slot at a time", async () => {
    const p = pool(2);
    await p.checkAll();
    const started: string[] = [];
    let inFlight = 0;
    let most = 0;
    const result = await drainOverPool({
      pool: p,
      jobs: ["a", "b", "c", "d", "e"],
      run: async (job) => {
        started.push(job);
        inFlight += 1;
        most = Math.max(most, inFlight);
        await tick(5);
        inFlight -= 1;
        return "done";
      },
    });
    p.stop();
    expect(started).toEqual(["a", "b", "c", "d", "e"]);
    expect(most).toBe(2);
    expect(result).toEqual({ stopped: false, left: [] });
  });

  it("a job sent back goes first, to the other endpoint, with its tries counted", async () => {
    const p = pool(2);
    await p.checkAll();
    const runs: [string, number, number][] = [];
    await drainOverPool({
      pool: p,
      jobs: ["a", "b", "c"],
      run: async (job, lease: EndpointLease, tries) => {
        runs.push([job, lease.index, tries]);
        await tick(job === "a" ? 2 : 20);
        return job === "a" && tries < 3 ? "retry" : "done";
      },
    });
    p.stop();
    // a on 0 and b on 1; a comes back before c, each time. Endpoint 1 is still busy with b, so a
    // takes 0 again: `avoid` passes over an endpoint only when another one is free.
    expect(runs.map(([job, , tries]) => `${job}${tries}`)).toEqual(["a1", "b1", "a2", "a3", "c1"]);
    expect(runs.filter(([job]) => job === "a").map(([, index]) => index)).toEqual([0, 0, 0]);
  });

  it("a retried job is passed to a free endpoint other than the one that dropped it", async () => {
    const p = pool(2);
    await p.checkAll();
    const runs: string[] = [];
    await drainOverPool({
      pool: p,
      jobs: ["a"],
      run: async (job, lease, tries) => {
        runs.push(`${job}${tries}@${lease.index}`);
        return tries < 3 ? "retry" : "done";
      },
    });
    p.stop();
    expect(runs).toEqual(["a1@0", "a2@1", "a3@0"]);
  });

  it("stops taking jobs when asked (a budget) or on the signal; the jobs in flight finish; the rest are left", async () => {
    const p = pool(1);
    await p.checkAll();
    let done = 0;
    const budget = await drainOverPool({
      pool: p,
      jobs: [1, 2, 3, 4],
      run: async () => {
        await tick(2);
        done += 1;
        return "done";
      },
      shouldStop: () => done >= 2,
    });
    expect(budget).toEqual({ stopped: true, left: [3, 4] });

    const controller = new AbortController();
    let finished = 0;
    const interrupted = await drainOverPool({
      pool: p,
      jobs: [1, 2, 3],
      run: async () => {
        controller.abort();
        await tick(5);
        finished += 1;
        return "done";
      },
      signal: controller.signal,
    });
    p.stop();
    expect(finished).toBe(1);
    expect(interrupted).toEqual({ stopped: true, left: [2, 3] });
  });

  it("with every endpoint down past the pause, says why and leaves the jobs", async () => {
    let up = true;
    const p = pool(1, () => (up ? { ok: true } : { ok: false, problem: "connection refused" }), 30);
    await p.checkAll();
    p.start();
    const result = await drainOverPool({
      pool: p,
      jobs: ["a", "b"],
      run: async (_job, lease) => {
        up = false;
        for (let i = 0; i < 3; i += 1) p.noteFault(lease.index, "connection");
        return "retry";
      },
    });
    p.stop();
    expect(result.unavailable).toMatch(/every endpoint has been down for 0 s/);
    expect(result.left).toEqual(["a", "b"]);
    expect(result.stopped).toBe(false);
  });

  describe("with preparation ahead", () => {
    /** A preparation the test finishes by hand, and a log of what happened in order. */
    function gates() {
      const open = new Map<string, () => void>();
      const log: string[] = [];
      const prepare = (job: string) =>
        new Promise<void>((resolve) => {
          log.push(`prepare ${job}`);
          open.set(job, () => {
            log.push(`prepared ${job}`);
            resolve();
          });
        });
      const finish = async (job: string) => {
        const done = open.get(job);
        if (!done) throw new Error(`${job} is not being prepared (log: ${log.join(", ")})`);
        done();
        await tick(2);
      };
      return { open, log, prepare, finish };
    }

    it("takes a slot only for a prepared job, the first prepared in queue order, with at most `concurrency` preparing", async () => {
      const p = pool(1);
      await p.checkAll();
      const g = gates();
      const release = new Map<string, () => void>();
      const draining = drainOverPool({
        pool: p,
        jobs: ["a", "b", "c", "d"],
        prepare: { run: g.prepare, concurrency: 2, ahead: 3 },
        run: (job) =>
          new Promise<"done">((resolve) => {
            g.log.push(`run ${job}`);
            release.set(job, () => resolve("done"));
          }),
      });
      await tick(2);
      // Two preparing, none running: the free slot is not taken for a job still being prepared.
      expect(g.log).toEqual(["prepare a", "prepare b"]);
      await g.finish("b");
      // b, ready first, takes the slot; c starts preparing in b's place.
      expect(g.log).toEqual(["prepare a", "prepare b", "prepared b", "prepare c", "run b"]);
      await g.finish("a");
      await g.finish("c");
      // a and c are ready but the one slot is b's; d starts (a, c ready and d preparing: ahead 3).
      expect(g.log.slice(5)).toEqual(["prepared a", "prepare d", "prepared c"]);
      release.get("b")?.();
      await tick(2);
      expect(g.log.at(-1)).toBe("run a");
      release.get("a")?.();
      await tick(2);
      expect(g.log.at(-1)).toBe("run c");
      await g.finish("d");
      release.get("c")?.();
      await tick(2);
      release.get("d")?.();
      expect(await draining).toEqual({ stopped: false, left: [] });
      p.stop();
      expect(g.log.filter((line) => line.startsWith("run"))).toEqual(["run b", "run a", "run c", "run d"]);
    });

    it("dispatches a job whose preparation failed (its run meets the failure) and runs a retried job without preparing it again", async () => {
      const p = pool(1);
      await p.checkAll();
      const prepared: string[] = [];
      const runs: string[] = [];
      const result = await drainOverPool({
        pool: p,
        jobs: ["a", "b"],
        prepare: {
          run: async (job) => {
            prepared.push(job);
            if (job === "a") throw new Error("no mirror");
          },
          concurrency: 1,
          ahead: 1,
        },
        run: async (job, _lease, tries) => {
          runs.push(`${job}${tries}`);
          return job === "a" && tries < 2 ? "retry" : "done";
        },
      });
      p.stop();
      expect(result).toEqual({ stopped: false, left: [] });
      expect(prepared).toEqual(["a", "b"]);
      expect(runs).toEqual(["a1", "a2", "b1"]);
    });

    it("a stopped drain waits for the preparations running and starts no more", async () => {
      const p = pool(1);
      await p.checkAll();
      const g = gates();
      const controller = new AbortController();
      const draining = drainOverPool({
        pool: p,
        jobs: ["a", "b", "c"],
        prepare: { run: g.prepare, concurrency: 1, ahead: 2 },
        run: async () => "done",
        signal: controller.signal,
      });
      await tick(2);
      controller.abort();
      let settled = false;
      void draining.then(() => {
        settled = true;
      });
      await tick(5);
      expect(settled).toBe(false);
      await g.finish("a");
      const result = await draining;
      p.stop();
      expect(result.stopped).toBe(true);
      expect(result.left).toEqual(["a", "b", "c"]);
      expect(g.log).toEqual(["prepare a", "prepared a"]);
    });
  });
});
