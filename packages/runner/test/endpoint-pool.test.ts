import { describe, expect, it } from "vitest";
import { type EndpointProbe, EndpointPool, type PoolEvent, PoolUnavailableError, parseRunSpec } from "../src/index.js";

// The scheduler's logic with probes given by the test (the real probe over HTTP is exercised by
// the run tests): which endpoint an attempt gets, when it waits, the breaker, the pause.
const endpoints = (specs: { maxConcurrency: number; weight?: number }[]) =>
  parseRunSpec({
    benchmark: "lite",
    endpoints: specs.map((spec, i) => ({ baseURL: `http://127.0.0.1:${8000 + i}/v1`, model: "m", ...spec })),
    repos: "r",
    out: "o",
  }).endpoints;

function pool(
  specs: { maxConcurrency: number; weight?: number }[],
  probe: (index: number) => EndpointProbe,
  options: { pauseMs?: number; probeMs?: number } = {},
) {
  const events: PoolEvent[] = [];
  const list = endpoints(specs);
  const instance = new EndpointPool(list, {
    breakerFailures: 3,
    probeMs: options.probeMs ?? 5,
    healthMs: 60_000,
    pauseMs: options.pauseMs ?? 60_000,
    onEvent: (event) => events.push(event),
    probe: async (endpoint) => probe(list.indexOf(endpoint)),
  });
  return { pool: instance, events };
}

describe("endpoint pool", () => {
  it("gives the least-loaded endpoint per slot and weight, waits when every slot is taken, and serves waiters in order", async () => {
    const { pool: p } = pool([{ maxConcurrency: 2 }, { maxConcurrency: 4 }], () => ({ ok: true }));
    await p.checkAll();
    const leases = [];
    for (let i = 0; i < 6; i += 1) leases.push(await p.acquire());
    // Load = in flight ÷ slots: 0 → ep0 (tie, fewer given), then ep1, ep1 (1/4 < 1/2), ep0, ep1, ep1.
    expect(leases.map((lease) => lease.index)).toEqual([0, 1, 1, 0, 1, 1]);
    const order: number[] = [];
    const seventh = p.acquire().then((lease) => {
      order.push(7);
      return lease;
    });
    const eighth = p.acquire().then((lease) => {
      order.push(8);
      return lease;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(order).toEqual([]);
    leases[1]?.release();
    expect((await seventh).index).toBe(1);
    leases[0]?.release();
    expect((await eighth).index).toBe(0);
    expect(order).toEqual([7, 8]);
    p.stop();
  });

  it("counts the server's own waiting queue from /metrics", async () => {
    const { pool: p } = pool([{ maxConcurrency: 8 }, { maxConcurrency: 8 }], (index) => ({
      ok: true,
      waiting: index === 0 ? 12 : 0,
    }));
    await p.checkAll();
    const picked = [];
    for (let i = 0; i < 8; i += 1) picked.push((await p.acquire()).index);
    expect(picked).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect((await p.acquire()).index).toBe(0);
    p.stop();
  });

  it("passes over the endpoint an attempt was dropped by, when another is free", async () => {
    const { pool: p } = pool([{ maxConcurrency: 2 }, { maxConcurrency: 2 }], () => ({ ok: true }));
    await p.checkAll();
    expect((await p.acquire({ avoid: 0 })).index).toBe(1);
    expect((await p.acquire({ avoid: 1 })).index).toBe(0);
    expect((await p.acquire({ avoid: 1 })).index).toBe(0);
    expect((await p.acquire({ avoid: 0 })).index).toBe(1);
    p.stop();
  });

  it("takes an endpoint out after consecutive faults, probes it back in; a success resets the count", async () => {
    let healthy = true;
    const { pool: p, events } = pool([{ maxConcurrency: 4 }, { maxConcurrency: 4 }], (index) =>
      index === 0 && !healthy ? { ok: false, problem: "refused" } : { ok: true },
    );
    await p.checkAll();
    p.start();
    p.noteFault(0, "http-5xx");
    p.noteFault(0, "http-5xx");
    p.noteSuccess(0);
    p.noteFault(0, "http-5xx");
    p.noteFault(0, "http-5xx");
    expect(p.snapshot()[0]?.health).toBe("up");
    healthy = false;
    p.noteFault(0, "connection");
    expect(p.snapshot()[0]).toMatchObject({
      health: "down",
      problem: "3 transport faults in a row (last: connection)",
    });
    expect((await p.acquire()).index).toBe(1);
    expect((await p.acquire()).index).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(p.snapshot()[0]?.health).toBe("down");
    healthy = true;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(p.snapshot()[0]?.health).toBe("up");
    expect(events.map((event) => event.type)).toEqual(["endpoint-down", "endpoint-up"]);
    expect((await p.acquire()).index).toBe(0);
    p.stop();
  });

  it("with every endpoint down it pauses (and says so), then refuses waiters after the pause", async () => {
    const { pool: p, events } = pool([{ maxConcurrency: 1 }], () => ({ ok: false, problem: "unreachable" }), {
      pauseMs: 40,
    });
    await p.checkAll();
    expect(p.anyUp).toBe(false);
    expect(events).toEqual([]); // at readiness, nothing up is the caller's to report
    p.start();
    expect(events[0]).toMatchObject({ type: "paused" });
    await expect(p.acquire()).rejects.toThrow(PoolUnavailableError);
    await expect(p.acquire()).rejects.toThrow("every endpoint has been down for 0 s");
    p.stop();
  });
});

describe("endpoint pool: the end of a pause", () => {
  it("probes every endpoint once more before giving up: a server restarted between two backed-off probes is found, and the waiter served", async () => {
    let restarted = false;
    let probes = 0;
    // The next scheduled probe would come only after a minute: the pause (100 ms) ends first.
    const { pool: p, events } = pool(
      [{ maxConcurrency: 1 }],
      () => {
        probes += 1;
        return restarted ? { ok: true } : { ok: false, problem: "unreachable" };
      },
      { pauseMs: 100, probeMs: 60_000 },
    );
    await p.checkAll();
    p.start();
    const waiting = p.acquire();
    restarted = true;
    const lease = await waiting;
    expect(lease.index).toBe(0);
    expect(probes).toBe(2); // the readiness check and the last chance, nothing between
    expect(events.map((event) => event.type)).toEqual(["paused", "endpoint-up", "unpaused"]);
    p.stop();
  });
});

describe("endpoint pool liveness", () => {
  it("checks the endpoints that are up every healthMs: one that stops answering is taken out, its waiting gauge read while up", async () => {
    let calls = 0;
    let alive = true;
    const list = endpoints([{ maxConcurrency: 2 }, { maxConcurrency: 2 }]);
    const events: PoolEvent[] = [];
    const p = new EndpointPool(list, {
      breakerFailures: 3,
      probeMs: 1_000,
      healthMs: 10,
      pauseMs: 60_000,
      onEvent: (event) => events.push(event),
      probe: async (endpoint) => {
        calls += 1;
        return list.indexOf(endpoint) === 1 && !alive
          ? { ok: false, problem: "no answer within 5 s" }
          : { ok: true, waiting: 3 };
      },
    });
    await p.checkAll();
    p.start();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(calls).toBeGreaterThan(4);
    expect(p.snapshot().map((status) => status.waiting)).toEqual([3, 3]);
    alive = false;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(p.snapshot()[1]).toMatchObject({ health: "down", problem: "no answer within 5 s" });
    expect(events).toEqual([
      { type: "endpoint-down", index: 1, baseURL: "http://127.0.0.1:8001/v1", reason: "no answer within 5 s" },
    ]);
    p.stop();
  });
});
