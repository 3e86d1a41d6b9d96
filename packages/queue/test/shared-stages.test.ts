import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCalcFixture, type CalcFixture, writeCalcRepairTasks } from "@loclab/fixtures";
import { localizationStageKey, parseRunSpec, planRun, type RunPlan } from "@loclab/runner";
import { runLayout } from "@loclab/schemas";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  connectRedis,
  newSharedFiles,
  placeSharedFromRedis,
  type RedisServer,
  SharedStages,
  startRedisServer,
} from "../src/index.js";

// A repair run's localizer stage shared between workers through a real Redis: the stage's files
// must reach the coordinator from the worker that ran it, whichever of its attempts finishes first.
let work: string;
let fixture: CalcFixture;
let plan: RunPlan;
let redisServer: Pick<RedisServer, "url"> & { stop?: () => Promise<void> };
let redis: Redis;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "loclab-shared-stages-"));
  fixture = await buildCalcFixture({ dir: join(work, "calc") });
  const tasks = await writeCalcRepairTasks(fixture, { count: 1, dir: work });
  plan = await planRun(
    parseRunSpec({
      kind: "repair",
      benchmark: tasks.benchmark,
      seeds: [1],
      endpoints: [{ baseURL: "http://127.0.0.1:9/v1", model: "scripted" }],
      repos: fixture.mirrors,
      out: join(work, "run"),
      repair: {
        arms: ["single", "locations", "findings"],
        evaluation: { specs: tasks.specs, cacheDir: join(work, "evaluations") },
      },
    }),
  );
  const given = process.env.LOCLAB_TEST_REDIS_URL;
  redisServer = given ? { url: given } : await startRedisServer();
  redis = connectRedis(redisServer.url);
});
afterAll(async () => {
  redis?.disconnect();
  await redisServer?.stop?.();
  if (work) rmSync(work, { recursive: true, force: true });
});

const attemptOf = (arm: string) => {
  const attempt = plan.attempts.find((one) => one.cell.arm === arm);
  if (!attempt) throw new Error(`no ${arm} attempt in the plan`);
  return attempt;
};

function stagesFor(out: string, sharedKey: string, holder: string) {
  return new SharedStages({
    redis,
    sharedKey,
    lockKey: (stageKey) => `${sharedKey}:lock:${stageKey}`,
    out,
    lockMs: 10_000,
    holder,
    pollMs: 20,
  });
}

/** What the repair kind's LocalizerStage writes: the trajectory, then the result. */
function writeStage(out: string, key: string) {
  mkdirSync(join(out, "localizations"), { recursive: true });
  writeFileSync(runLayout.localizationTrajectory(out, key), '{"turn":1}\n');
  writeFileSync(runLayout.localizationStage(out, key), `{"key":"${key}"}\n`);
}

describe("SharedStages", () => {
  it("a stage run here is sent by whichever of this worker's attempts ends first, after its lock is released; another worker places it from Redis", async () => {
    const sharedKey = `loclab:test:${Date.now()}:shared`;
    const [locations, findings, single] = [attemptOf("locations"), attemptOf("findings"), attemptOf("single")];
    const key = localizationStageKey(plan, locations);
    expect(localizationStageKey(plan, findings)).toBe(key);
    const outA = join(work, "worker-a");
    const a = stagesFor(outA, sharedKey, "a");
    expect(await a.prepare(plan, single)).toEqual({ kind: "none" });

    // The locations arm takes the lock and runs the stage; released once its result is written.
    const taken = await a.prepare(plan, locations);
    expect(taken).toMatchObject({ kind: "locked", stageKey: key });
    writeStage(outA, key);
    if (taken.kind === "locked") await taken.release();
    expect(await redis.hlen(sharedKey)).toBe(2);

    // The findings arm on the same worker starts while the locations arm still runs its fixer:
    // the stage is here already. It must not be taken as shipped (the bug CI met: no attempt sent it).
    const shipped = new Set<string>();
    expect(await a.prepare(plan, findings)).toEqual({ kind: "none" });
    expect(await newSharedFiles(outA, shipped)).toEqual([
      runLayout.localizationStage(outA, key),
      runLayout.localizationTrajectory(outA, key),
    ]);
    expect(await newSharedFiles(outA, shipped)).toEqual([]);

    // Another worker finds it in Redis and places it: the same bytes; the coordinator has them already.
    const outB = join(work, "worker-b");
    const placed = await stagesFor(outB, sharedKey, "b").prepare(plan, findings);
    expect(placed).toEqual({
      kind: "placed",
      stageKey: key,
      paths: [runLayout.localizationStage(outB, key), runLayout.localizationTrajectory(outB, key)],
    });
    for (const path of ["localizationStage", "localizationTrajectory"] as const)
      expect(readFileSync(runLayout[path](outB, key), "utf8")).toBe(readFileSync(runLayout[path](outA, key), "utf8"));
  });

  it("placeSharedFromRedis places nothing when Redis lacks the first path, and the rest with it when it has it", async () => {
    const sharedKey = `loclab:test:${Date.now()}:shared-place`;
    const out = join(work, "coordinator");
    const paths = ["localizations/x.json", "localizations/x.traj.jsonl"];
    expect(await placeSharedFromRedis(redis, sharedKey, out, paths)).toBe(false);
    expect(existsSync(join(out, paths[1] as string))).toBe(false);
    await redis.hset(sharedKey, paths[1] as string, JSON.stringify({ path: paths[1], utf8: "trajectory\n" }));
    expect(await placeSharedFromRedis(redis, sharedKey, out, paths)).toBe(false);
    await redis.hset(sharedKey, paths[0] as string, JSON.stringify({ path: paths[0], utf8: "result\n" }));
    expect(await placeSharedFromRedis(redis, sharedKey, out, paths)).toBe(true);
    expect(readFileSync(join(out, paths[0] as string), "utf8")).toBe("result\n");
    expect(readFileSync(join(out, paths[1] as string), "utf8")).toBe("trajectory\n");
  });
});
