import type { Instance, MismatchPair } from "@loclab/schemas";
import { type SeededRandom, seededRandom } from "@loclab/statistics";

/** The fields of an instance that the mismatch control reads. */
export type SnapshotInstance = Pick<Instance, "instance_id" | "repo" | "base_commit">;

export interface MismatchPairingOptions {
  /** Any safe integer; the same seed and instances give the same pairing. */
  seed: number;
}

/** The pairs (`MismatchPair`, the run folder's schema) of one seed. */
export interface MismatchPairing {
  /** One pair per instance, in input order. */
  pairs: MismatchPair[];
}

/** Swap proposals per instance when mixing the pairing (see below). */
const MIXING_STEPS_PER_INSTANCE = 20;

/**
 * The mismatch (negative) control, docs/definitions.md §4: pairs each issue with another task's
 * repository snapshot, so that a localizer that really reads the code falls to chance.
 *
 * The pairing is a permutation σ of the instances with repo(σ(i)) ≠ repo(i) for every i — a
 * derangement across repositories: each instance gives its snapshot to exactly one other
 * instance and gets one from an instance of a different repository (at any commit, so no
 * issue ever sees its own project). Repositories are compared case-insensitively.
 *
 * Such a permutation exists exactly when no repository holds more than half of the
 * instances (Hall's condition); otherwise, and with duplicate instance ids, this throws
 * naming the repository. Construction: instances sorted by id (so input order does not
 * matter), grouped by repository in a seeded random order, laid out group after group and
 * shifted by the largest group size M — every group's block then maps outside itself since
 * M ≤ n − M — and then mixed by 20·n seeded proposals to swap the snapshots of two instances,
 * each accepted when both still get another repository's snapshot. The proposal chain is
 * symmetric, so it tends to the uniform distribution over the pairings it can reach.
 *
 * Pure: randomness comes only from `seed` (xoshiro128** via seededRandom of @loclab/statistics, unbiased integer draws). Cost: O(n log n + 20·n).
 *
 * @example mismatchPairing((await loadBenchmark("lite")).instances, { seed: 1 }).pairs[0]
 * // { instanceId: "astropy__astropy-12907", snapshotOf: "django__django-13933", repo: "astropy/astropy", snapshotRepo: "django/django", … }
 */
export function mismatchPairing(
  instances: readonly SnapshotInstance[],
  options: MismatchPairingOptions,
): MismatchPairing {
  if (!Number.isSafeInteger(options.seed))
    throw new RangeError(`mismatchPairing requires an integer seed, got ${options.seed}`);
  const sorted = sortedById(instances);
  const n = sorted.length;
  if (n === 0) return { pairs: [] };
  const rng = seededRandom(options.seed);
  const repoOf = sorted.map((instance) => instance.repo.toLowerCase());
  const groups = groupIndices(repoOf);
  const largest = Math.max(...[...groups.values()].map((members) => members.length));
  if (groups.size < 2 || largest > n - largest) {
    const [repo] = [...groups].find(([, members]) => members.length === largest) as [string, number[]];
    throw new Error(
      `mismatchPairing: cannot give every instance another repository's snapshot: ${repo} holds ${largest} of ${n} instances ` +
        `(a pairing across repositories needs every repository to hold at most half of them)`,
    );
  }
  const snapshot = shiftedLayout(groups, largest, rng);
  mix(snapshot, repoOf, rng);
  const byId = new Map(sorted.map((instance, i) => [instance.instance_id, i]));
  const pairs = instances.map((instance) => {
    const source = sorted[snapshot[byId.get(instance.instance_id) as number] as number] as SnapshotInstance;
    return {
      instanceId: instance.instance_id,
      snapshotOf: source.instance_id,
      repo: instance.repo,
      snapshotRepo: source.repo,
      snapshotCommit: source.base_commit,
    };
  });
  return { pairs };
}

function sortedById(instances: readonly SnapshotInstance[]): SnapshotInstance[] {
  const sorted = [...instances].sort((a, b) =>
    a.instance_id < b.instance_id ? -1 : a.instance_id > b.instance_id ? 1 : 0,
  );
  for (let i = 1; i < sorted.length; i += 1) {
    if (sorted[i]?.instance_id === sorted[i - 1]?.instance_id) {
      throw new Error(`mismatchPairing: duplicate instance_id ${sorted[i]?.instance_id}`);
    }
  }
  return sorted;
}

/** Instance indices per repository, repositories in first-seen (sorted-id) order. */
function groupIndices(repoOf: readonly string[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  repoOf.forEach((repo, i) => {
    const members = groups.get(repo);
    if (members) members.push(i);
    else groups.set(repo, [i]);
  });
  return groups;
}

/**
 * A first valid pairing: groups (shuffled, members shuffled) laid out one after another,
 * each position taking the snapshot `largest` positions further on (cyclically). A group of
 * size s ≤ largest ≤ n − largest occupying [a, a + s) sends every member to a position in
 * [a + largest, a + s − 1 + largest], which lies outside [a, a + s) even after wrapping.
 */
function shiftedLayout(groups: Map<string, number[]>, largest: number, rng: SeededRandom): number[] {
  const layout = shuffle([...groups.values()], rng).flatMap((members) => shuffle([...members], rng));
  const n = layout.length;
  const snapshot = new Array<number>(n);
  layout.forEach((instance, position) => {
    snapshot[instance] = layout[(position + largest) % n] as number;
  });
  return snapshot;
}

/** Seeded swaps of two instances' snapshots, kept when both stay cross-repository. */
function mix(snapshot: number[], repoOf: readonly string[], rng: SeededRandom): void {
  const n = snapshot.length;
  for (let step = 0; step < MIXING_STEPS_PER_INSTANCE * n; step += 1) {
    const i = rng.nextBelow(n);
    const j = rng.nextBelow(n);
    const a = snapshot[i] as number;
    const b = snapshot[j] as number;
    if (i === j || repoOf[b] === repoOf[i] || repoOf[a] === repoOf[j]) continue;
    snapshot[i] = b;
    snapshot[j] = a;
  }
}

/** Fisher–Yates, in place, with the given rng. */
function shuffle<T>(items: T[], rng: SeededRandom): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = rng.nextBelow(i + 1);
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
