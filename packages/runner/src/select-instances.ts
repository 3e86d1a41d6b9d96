import type { Instance } from "@loclab/schemas";
import { seededRandom } from "@loclab/statistics";
import { RunSpecError } from "./load-run-spec.js";
import type { InstanceSelection, RunSpec } from "./run-spec.js";

/**
 * The instances a run takes, in the benchmark's order: `ids` (each must exist), then `repos`,
 * then `slice`, then a seeded `sample` of what is left (a partial Fisher–Yates shuffle drawn
 * with xoshiro128**, so the same seed picks the same instances on any machine). Pure.
 * An empty result is an error: a run of nothing is a mistake in the spec.
 */
export function selectInstances(all: readonly Instance[], selection: RunSpec["instances"]): Instance[] {
  const chosen: InstanceSelection = Array.isArray(selection) ? { ids: selection } : (selection ?? {});
  let picked = [...all];
  if (chosen.ids) {
    const known = new Set(all.map((instance) => instance.instance_id));
    const index = chosen.ids.findIndex((id) => !known.has(id));
    if (index >= 0) {
      const where = Array.isArray(selection) ? `$.instances[${index}]` : `$.instances.ids[${index}]`;
      throw new RunSpecError(where, `${chosen.ids[index]} is not an instance of the benchmark`);
    }
    const wanted = new Set(chosen.ids);
    picked = picked.filter((instance) => wanted.has(instance.instance_id));
  }
  if (chosen.repos) {
    const repos = new Set(chosen.repos.map((repo) => repo.toLowerCase()));
    picked = picked.filter((instance) => repos.has(instance.repo.toLowerCase()));
  }
  if (chosen.slice) picked = picked.slice(chosen.slice.start, chosen.slice.end);
  if (chosen.sample && chosen.sample.n < picked.length) {
    const rng = seededRandom(chosen.sample.seed);
    const order = picked.map((_, i) => i);
    for (let i = 0; i < chosen.sample.n; i += 1) {
      const j = i + rng.nextBelow(order.length - i);
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    const keep = new Set(order.slice(0, chosen.sample.n));
    picked = picked.filter((_, i) => keep.has(i));
  }
  if (picked.length === 0) throw new RunSpecError("$.instances", "selects no instance of the benchmark");
  return picked;
}
