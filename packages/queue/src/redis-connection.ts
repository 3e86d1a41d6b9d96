import { Redis } from "ioredis";

/** The environment variable a Redis password is read from (never a file, a log or a URL in a spec). */
export const REDIS_PASSWORD_ENV = "LOCLAB_REDIS_PASSWORD";

/** `redis://HOST:PORT[/DB]`, checked, with the password from `LOCLAB_REDIS_PASSWORD` when set. */
export function redisOptions(url: string): { host: string; port: number; db: number; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--queue ${url}: not a URL; expected redis://HOST:PORT, e.g. redis://127.0.0.1:6379`);
  }
  if (parsed.protocol !== "redis:")
    throw new Error(`--queue ${url}: expected redis://HOST:PORT (the password, if any, in ${REDIS_PASSWORD_ENV})`);
  if (parsed.password)
    throw new Error(`--queue: put the Redis password in ${REDIS_PASSWORD_ENV}, not in the URL (it would reach logs)`);
  const db = parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`--queue ${url}: the database number must be an integer`);
  const password = process.env[REDIS_PASSWORD_ENV];
  return {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
    db,
    ...(password ? { password } : {}),
  };
}

/**
 * A connection that waits out a Redis restart instead of failing: commands queue while it is
 * away (`maxRetriesPerRequest: null`, which BullMQ's workers require) and reconnection retries
 * every 0.1–2 s without end. `onState` hears it go and come back.
 */
export function connectRedis(url: string, onState?: (state: "down" | "up", detail: string) => void): Redis {
  const redis = new Redis({
    ...redisOptions(url),
    maxRetriesPerRequest: null,
    enableReadyCheck: true,
    retryStrategy: (times) => Math.min(100 * times, 2000),
    lazyConnect: false,
  });
  let down = false;
  redis.on("error", (error: Error) => {
    if (!down) {
      down = true;
      onState?.("down", error.message);
    }
  });
  redis.on("ready", () => {
    if (down) {
      down = false;
      onState?.("up", url);
    }
  });
  return redis;
}
