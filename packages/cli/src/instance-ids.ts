import type { Instance } from "@loclab/schemas";

/** A comma-separated list of instance ids as given to an option (`--instances a,b`): trimmed, empty items dropped. */
export function parseIdList(text: string): string[] {
  return text
    .split(",")
    .map((id) => id.trim())
    .filter((id) => id !== "");
}

/**
 * The instances of a benchmark that `ids` names, in the benchmark's order; an id the benchmark
 * does not have is an error naming the option, the benchmark and every such id.
 */
export function listedInstances<T extends Pick<Instance, "instance_id">>(
  instances: readonly T[],
  ids: readonly string[],
  where: { flag: string; benchmark: string },
): T[] {
  const known = new Set(instances.map((row) => row.instance_id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length > 0) throw new Error(`${where.flag}: not in ${where.benchmark}: ${missing.join(", ")}`);
  const wanted = new Set(ids);
  return instances.filter((row) => wanted.has(row.instance_id));
}
