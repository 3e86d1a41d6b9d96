import { existsSync } from "node:fs";
import { relative } from "node:path";
import {
  LOCALIZER_ARMS,
  localizationStageKey,
  type PlannedAttempt,
  type RepairArm,
  type RunPlan,
} from "@loclab/runner";
import { runLayout } from "@loclab/schemas";
import type { Redis } from "ioredis";
import { type CarriedFile, CarriedFileSchema } from "./attempt-job.js";
import { carryFiles, placeFiles } from "./carried-files.js";

export interface SharedStagesOptions {
  redis: Redis;
  /** `runKeys(id).shared`: the hash of shared files (field: path in the run folder). */
  sharedKey: string;
  /** `runKeys(id).stageLock`: a stage's lock, held by the worker that runs it. */
  lockKey: (stageKey: string) => string;
  /** This worker's run folder. */
  out: string;
  /** How long a stage's lock lasts (a dead holder's lock lapses; then another worker runs the stage). */
  lockMs: number;
  holder: string;
  /** How often a waiting worker looks for the stage's result. Default 250 ms. */
  pollMs?: number;
}

/** What `prepare` did for an attempt: nothing to share, the stage placed from Redis, or the stage's lock taken. */
export type StagePreparation =
  | { kind: "none" }
  | { kind: "placed"; stageKey: string /** The stage's files in this worker's folder. */; paths: string[] }
  | { kind: "locked"; stageKey: string; release: () => Promise<void> };

/**
 * The localizer stage that a repair run's hand-off arms share (one per task × seed × control),
 * run once across all workers. Before an attempt of a hand-off arm, a worker looks in Redis
 * for the stage's stored result and trajectory and places them in its own run folder, where
 * the repair kind's `LocalizerStage` finds and reuses them. When they are not there it takes
 * the stage's lock and runs the stage itself (then `publish` stores its files, first writer
 * wins, and the lock is released); when another worker holds the lock, it waits for that
 * worker's files, or for the lock to lapse. Judge verdicts are not shared this way (their
 * digests are known only after the stage); a worker may ask the judge once more about a finding
 * another worker judged.
 */
export class SharedStages {
  /** Stages whose lock this worker holds: its other attempts of the same stage go on (the repair kind runs a stage once per process). */
  private readonly held = new Set<string>();

  constructor(private readonly options: SharedStagesOptions) {}

  async prepare(plan: RunPlan, attempt: PlannedAttempt, signal?: AbortSignal): Promise<StagePreparation> {
    if (plan.spec.kind !== "repair" || !LOCALIZER_ARMS.has((attempt.cell.arm ?? "single") as RepairArm))
      return { kind: "none" };
    const stageKey = localizationStageKey(plan, attempt);
    if (this.held.has(stageKey)) return { kind: "none" };
    const { redis, lockKey, lockMs, holder, out } = this.options;
    while (!signal?.aborted) {
      const found = await this.place(stageKey);
      // Already in this folder: placed from Redis before (then shipped), or run here, in which
      // case it goes to the coordinator with the next attempt that finds it unshipped — it is not
      // marked shipped here, or nothing would send it.
      if (found === "here") return { kind: "none" };
      if (found === "placed")
        return {
          kind: "placed",
          stageKey,
          paths: [runLayout.localizationStage(out, stageKey), runLayout.localizationTrajectory(out, stageKey)],
        };
      const token = `${holder}:${stageKey}`;
      const taken = await redis.set(lockKey(stageKey), token, "PX", lockMs, "NX");
      if (taken === "OK") {
        this.held.add(stageKey);
        const result = runLayout.localizationStage(out, stageKey);
        let released = false;
        const release = async () => {
          if (released) return;
          released = true;
          clearInterval(timer);
          // Published as soon as the stage has its result, so that other workers need not wait for the whole attempt.
          if (existsSync(result))
            await this.publish(
              [runLayout.localizationTrajectory(out, stageKey), result].filter((path) => existsSync(path)),
            );
          this.held.delete(stageKey);
          if ((await redis.get(lockKey(stageKey)).catch(() => null)) === token)
            await redis.del(lockKey(stageKey)).catch(() => undefined);
        };
        // Renewed while the stage runs (a dead worker's lock lapses); released once its result is written.
        const timer = setInterval(
          () => {
            if (existsSync(result)) void release().catch(() => undefined);
            else redis.pexpire(lockKey(stageKey), lockMs).catch(() => undefined);
          },
          Math.min(250, lockMs / 3),
        );
        timer.unref();
        return { kind: "locked", stageKey, release };
      }
      await new Promise((resolve) => setTimeout(resolve, this.options.pollMs ?? 250));
    }
    return { kind: "none" };
  }

  /** Stores the shared files of this worker's run folder in Redis (first writer wins). */
  async publish(paths: readonly string[]): Promise<void> {
    if (paths.length === 0) return;
    const files = await carryFiles(this.options.out, paths);
    const pipeline = this.options.redis.pipeline();
    for (const file of files) pipeline.hsetnx(this.options.sharedKey, file.path, JSON.stringify(file));
    await pipeline.exec();
  }

  /**
   * The stage's result (and trajectory) from Redis into this worker's folder: `placed` when it
   * came from Redis now, `here` when this folder has it already, `missing` when Redis has no
   * result yet.
   */
  private async place(stageKey: string): Promise<"placed" | "here" | "missing"> {
    const { out, redis, sharedKey } = this.options;
    const result = runLayout.localizationStage(out, stageKey);
    if (existsSync(result)) return "here";
    const placed = await placeSharedFromRedis(
      redis,
      sharedKey,
      out,
      [result, runLayout.localizationTrajectory(out, stageKey)].map((path) =>
        relative(out, path).split("\\").join("/"),
      ),
    );
    return placed ? "placed" : "missing";
  }
}

/**
 * Places shared files from the run's hash in Redis into the run folder `out`, `paths` relative
 * and the first one the one that must be there (a stage's result): false, placing nothing, when
 * Redis does not hold it. The others are placed first: the first is what readers look for.
 */
export async function placeSharedFromRedis(
  redis: Redis,
  sharedKey: string,
  out: string,
  paths: readonly string[],
): Promise<boolean> {
  const values = await redis.hmget(sharedKey, ...paths);
  if (values[0] === null || values[0] === undefined) return false;
  const files: CarriedFile[] = values
    .filter((value): value is string => typeof value === "string")
    .map((value) => CarriedFileSchema.parse(JSON.parse(value)));
  await placeFiles(out, files.slice().reverse());
  return true;
}
