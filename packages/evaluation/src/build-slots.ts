/**
 * At most `max` of the given works at once; the others wait in order. Image builds are bounded
 * by this (each takes a core or two and a few GiB of memory), separately from how many
 * instances are evaluated at once.
 */
export function limiter(max: number): <T>(work: () => Promise<T>) => Promise<T> {
  if (!Number.isInteger(max) || max < 1) throw new Error(`a build limit must be a whole number ≥ 1 (got ${max})`);
  let active = 0;
  const waiting: (() => void)[] = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    while (active >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    try {
      return await work();
    } finally {
      active -= 1;
      waiting.shift()?.();
    }
  };
}

/**
 * One pending make per key: callers asking for the same key at once share it; a make that fails
 * is forgotten, so that the next caller tries again.
 */
export function sharedByKey<T>(): (key: string, make: () => Promise<T>) => Promise<T> {
  const pending = new Map<string, Promise<T>>();
  return (key, make) => {
    let current = pending.get(key);
    if (!current) {
      current = make();
      pending.set(key, current);
      current.catch(() => pending.delete(key));
    }
    return current;
  };
}
