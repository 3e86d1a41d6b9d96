import { mkdtemp, readFile, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keyHistories, type RunRecord } from "@loclab/schemas";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CarriedFileSchema,
  carryFiles,
  commitDecision,
  EndpointSlots,
  placeFiles,
  type RedisServer,
  redisOptions,
  startRedisServer,
} from "../src/index.js";

const KEY = "a".repeat(64);
function record(attempt: number, outcome: RunRecord["outcome"], turns = 2): RunRecord {
  return {
    kind: "loclab.run-record",
    schemaVersion: 1,
    key: KEY,
    instanceId: "acme__abacus-1",
    attempt,
    seed: 1,
    control: { kind: "plain" },
    endpoint: { baseURL: "http://127.0.0.1:1/v1", model: "m" },
    outcome,
    turns,
    usage: {},
    retries: [],
    trajectory: null,
    startedAt: "2026-12-04T00:00:00.000Z",
    endedAt: "2026-12-04T00:00:01.000Z",
  } as unknown as RunRecord;
}
const history = (...records: RunRecord[]) => keyHistories(records).get(KEY);

describe("commitDecision: at-least-once delivery made exactly-once", () => {
  it("commits the first result of a key, and a retry's next attempt after an infra_error", () => {
    expect(commitDecision(undefined, { attempt: 1, record: record(1, "finished") })).toBe("commit");
    expect(commitDecision(history(record(1, "infra_error")), { attempt: 2, record: record(2, "finished") })).toBe(
      "commit",
    );
  });
  it("counts a second execution of a key already final, or of an attempt already recorded, as a duplicate", () => {
    const done = history(record(1, "finished"));
    expect(commitDecision(done, { attempt: 1, record: record(1, "finished", 3) })).toBe("duplicate");
    expect(commitDecision(done, { attempt: 2, record: record(2, "finished") })).toBe("duplicate");
    expect(commitDecision(history(record(1, "infra_error")), { attempt: 1, record: record(1, "finished") })).toBe(
      "duplicate",
    );
  });
  it("recognises the very record it committed (a coordinator killed before deleting the stream entry) as a replay", () => {
    const committed = record(1, "finished");
    expect(commitDecision(history(committed), { attempt: 1, record: record(1, "finished") })).toBe("replay");
  });
});

describe("the results' files", () => {
  it("carry text as UTF-8 and bytes as base64, and land inside the run folder only", async () => {
    const from = await mkdtemp(join(tmpdir(), "loclab-carry-"));
    const to = await mkdtemp(join(tmpdir(), "loclab-place-"));
    await mkdir(join(from, "trajectories", "c"), { recursive: true });
    await writeFile(join(from, "trajectories", "c", "attempt-1.traj.jsonl"), '{"step":0,"text":"é"}\n');
    await writeFile(join(from, "trajectories", "c", "attempt-1.bin"), Buffer.from([0xff, 0x00, 0xfe]));
    const files = await carryFiles(from, [
      join(from, "trajectories", "c", "attempt-1.traj.jsonl"),
      join(from, "trajectories", "c", "attempt-1.bin"),
    ]);
    expect(files.map((file) => Object.keys(file).sort())).toEqual([
      ["path", "utf8"],
      ["base64", "path"],
    ]);
    await placeFiles(to, files);
    expect(await readFile(join(to, "trajectories", "c", "attempt-1.traj.jsonl"), "utf8")).toBe(
      '{"step":0,"text":"é"}\n',
    );
    expect([...(await readFile(join(to, "trajectories", "c", "attempt-1.bin")))]).toEqual([0xff, 0x00, 0xfe]);
    expect(CarriedFileSchema.safeParse({ path: "../escape", utf8: "x" }).success).toBe(false);
    expect(CarriedFileSchema.safeParse({ path: "/etc/passwd", utf8: "x" }).success).toBe(false);
  });
});

describe("redisOptions", () => {
  it("takes redis://HOST:PORT and refuses a password in the URL or another scheme, naming the option", () => {
    expect(redisOptions("redis://10.0.0.5:6390/2")).toMatchObject({ host: "10.0.0.5", port: 6390, db: 2 });
    expect(() => redisOptions("redis://:secret@127.0.0.1:6379")).toThrow(/LOCLAB_REDIS_PASSWORD, not in the URL/);
    expect(() => redisOptions("http://127.0.0.1:6379")).toThrow(/--queue http:\/\/127.0.0.1:6379: expected redis:\/\//);
    expect(() => redisOptions("127.0.0.1:6379")).toThrow(/--queue/);
  });
});

describe("EndpointSlots on a real Redis", () => {
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });

  it("gives at most `limit` slots per endpoint across holders; a released slot is free again; a dead holder's slot expires", async () => {
    const slots = new EndpointSlots({ redis, keyOf: (i) => `test:slots:${i}`, limits: [2, 1], ttlMs: 600 });
    const a = await slots.tryAcquire(0, "worker-a");
    const b = await slots.tryAcquire(0, "worker-b");
    expect(a && b).toBeTruthy();
    expect(await slots.tryAcquire(0, "worker-c")).toBeUndefined();
    expect(await slots.tryAcquire(1, "worker-c")).toBeDefined();
    expect(await slots.held(0)).toBe(2);
    await a?.release();
    const c = await slots.tryAcquire(0, "worker-c");
    expect(c).toBeDefined();
    // A holder that dies holds no renewal: its member stays until its expiry, then the slot is free.
    await redis.zadd("test:slots:2", Date.now() + 300, "dead-worker");
    const short = new EndpointSlots({ redis, keyOf: (i) => `test:slots:${i}`, limits: [2, 1, 1], ttlMs: 600 });
    expect(await short.tryAcquire(2, "worker-d")).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await short.tryAcquire(2, "worker-d")).toBeDefined();
    await expect(slots.tryAcquire(5, "x")).rejects.toThrow(/endpoint 5 is not in the run's spec/);
    await b?.release();
    await c?.release();
  });
  it("renews a held slot, so an attempt longer than the expiry keeps it", async () => {
    const slots = new EndpointSlots({ redis, keyOf: (i) => `test:renew:${i}`, limits: [1], ttlMs: 300 });
    const held = await slots.tryAcquire(0, "long");
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await slots.tryAcquire(0, "other")).toBeUndefined();
    await held?.release();
    expect(await slots.tryAcquire(0, "other")).toBeDefined();
  });
});
