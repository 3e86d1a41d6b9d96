import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";

// Acquire: drop expired holders, then take a slot if fewer than `limit` are held. Redis's own
// clock (TIME) for every expiry, so workers' clocks never matter. Atomic (one script).
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  return 1
end
return 0`;
// Renew: push the holder's expiry on, only if it still holds the slot (XX).
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[1]), ARGV[2])`;

export interface EndpointSlotsOptions {
  redis: Redis;
  /** The Redis key of each endpoint's slots (`runKeys(id).slots`). */
  keyOf: (endpoint: number) => string;
  /** Each endpoint's limit (the spec's `maxConcurrency`), across every worker. */
  limits: readonly number[];
  /** A slot held by a worker that died is free again after this long. Default 30 s; renewed every third of it. */
  ttlMs?: number;
}

/** A slot held; `release` gives it back (idempotent). */
export interface HeldSlot {
  endpoint: number;
  release(): Promise<void>;
}

/**
 * Per-endpoint concurrency across every worker of a run, held in Redis (open-source BullMQ has
 * one limiter per queue and no group concurrency: that is BullMQ Pro): each endpoint is a sorted
 * set of holders scored by expiry; a slot is taken by a script that first drops expired holders
 * (a SIGKILLed worker's slots come back after `ttlMs`) and renewed while held.
 */
export class EndpointSlots {
  private readonly ttlMs: number;

  constructor(private readonly options: EndpointSlotsOptions) {
    this.ttlMs = options.ttlMs ?? 30_000;
  }

  /** A slot on `endpoint` now, or undefined when all its slots are held. */
  async tryAcquire(endpoint: number, holderPrefix: string): Promise<HeldSlot | undefined> {
    const { redis, keyOf, limits } = this.options;
    const limit = limits[endpoint];
    if (limit === undefined) throw new Error(`endpoint ${endpoint} is not in the run's spec`);
    const key = keyOf(endpoint);
    const holder = `${holderPrefix}:${randomUUID()}`;
    const taken = await redis.eval(ACQUIRE, 1, key, limit, this.ttlMs, holder);
    if (taken !== 1) return undefined;
    const timer = setInterval(() => {
      // A renewal lost to a Redis outage is tried again at the next tick; the slot's expiry
      // (ttlMs, three ticks) outlasts a restart of a few seconds.
      redis.eval(RENEW, 1, key, this.ttlMs, holder).catch(() => undefined);
    }, this.ttlMs / 3);
    timer.unref();
    let released = false;
    return {
      endpoint,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        await redis.zrem(key, holder).catch(() => undefined);
      },
    };
  }

  /** Slots held now on `endpoint` (expired ones not counted). */
  async held(endpoint: number): Promise<number> {
    const key = this.options.keyOf(endpoint);
    const [seconds, micros] = await this.options.redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    return this.options.redis.zcount(key, now, "+inf");
  }
}
