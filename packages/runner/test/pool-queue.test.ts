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
});
