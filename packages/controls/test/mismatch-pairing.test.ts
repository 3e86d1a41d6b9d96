import { loadBenchmark } from "@loclab/datasets";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type MismatchPairing, type SnapshotInstance, mismatchPairing } from "../src/index.js";

/** Every property the mismatch control promises (docs/definitions.md §4). */
function expectValidPairing(instances: readonly SnapshotInstance[], { pairs }: MismatchPairing): void {
  const byId = new Map(instances.map((instance) => [instance.instance_id, instance]));
  // One pair per instance, in input order.
  expect(pairs.map((pair) => pair.instanceId)).toEqual(instances.map((instance) => instance.instance_id));
  // Each snapshot is given exactly once: a permutation.
  expect(new Set(pairs.map((pair) => pair.snapshotOf)).size).toBe(instances.length);
  for (const pair of pairs) {
    const own = byId.get(pair.instanceId) as SnapshotInstance;
    const source = byId.get(pair.snapshotOf) as SnapshotInstance;
    expect(source).toBeDefined();
    expect(pair.repo).toBe(own.repo);
    expect(pair.snapshotRepo).toBe(source.repo);
    expect(pair.snapshotCommit).toBe(source.base_commit);
    // Never its own repository, at any commit.
    expect(pair.snapshotRepo.toLowerCase()).not.toBe(pair.repo.toLowerCase());
  }
}

/** Instances over repositories none of which holds more than half of them. */
const feasibleInstances = fc
  .array(fc.integer({ min: 1, max: 12 }), { minLength: 2, maxLength: 8 })
  .filter((sizes) => Math.max(...sizes) * 2 <= sizes.reduce((a, b) => a + b, 0))
  .map((sizes) =>
    sizes.flatMap((size, repo) =>
      Array.from({ length: size }, (_, k) => ({
        instance_id: `owner${repo}__repo${repo}-${k}`,
        repo: `owner${repo}/repo${repo}`,
        base_commit: `c${repo}x${k}`,
      })),
    ),
  );

describe("mismatchPairing (docs/definitions.md §4, negative control)", () => {
  it("gives each instance once another repository's snapshot, and each snapshot once (property)", () => {
    fc.assert(
      fc.property(feasibleInstances, fc.integer(), (instances, seed) => {
        expectValidPairing(instances, mismatchPairing(instances, { seed }));
      }),
      { numRuns: 300 },
    );
  });

  it("is deterministic for a seed, and does not depend on input order (property)", () => {
    fc.assert(
      fc.property(
        feasibleInstances.chain((instances) =>
          fc.tuple(fc.constant(instances), fc.shuffledSubarray(instances, { minLength: instances.length })),
        ),
        fc.integer(),
        ([instances, shuffled], seed) => {
          const first = mismatchPairing(instances, { seed });
          expect(mismatchPairing(instances, { seed })).toEqual(first);
          const mapping = new Map(first.pairs.map((pair) => [pair.instanceId, pair.snapshotOf]));
          for (const pair of mismatchPairing(shuffled, { seed }).pairs)
            expect(pair.snapshotOf).toBe(mapping.get(pair.instanceId));
        },
      ),
      { numRuns: 200 },
    );
  });

  it("pairs every benchmark, and their union, differently for different seeds", async () => {
    const all = new Map<string, SnapshotInstance>();
    for (const name of ["lite", "verified", "locbench"] as const) {
      const { instances } = await loadBenchmark(name);
      const pairings = [1, 2, 3].map((seed) => mismatchPairing(instances, { seed }));
      for (const pairing of pairings) expectValidPairing(instances, pairing);
      expect(
        new Set(pairings.map((pairing) => JSON.stringify(pairing.pairs.map((pair) => pair.snapshotOf)))).size,
      ).toBe(3);
      // Different seeds differ on most instances, not on a handful.
      const same =
        pairings[0]?.pairs.filter((pair, i) => pair.snapshotOf === pairings[1]?.pairs[i]?.snapshotOf).length ?? 0;
      expect(same).toBeLessThan(instances.length / 10);
      // Lite and Verified share instances: pair the union of distinct ids.
      for (const instance of instances) all.set(instance.instance_id, instance);
    }
    const union = [...all.values()];
    expect(union.length).toBeGreaterThan(1_000);
    expectValidPairing(union, mismatchPairing(union, { seed: 7 }));
  });

  it("mixes: over seeds, an instance receives snapshots from many repositories", () => {
    const instances = Array.from({ length: 40 }, (_, i) => ({
      instance_id: `i${i}`,
      repo: `o/r${i % 4}`,
      base_commit: `c${i}`,
    }));
    const received = new Set<string>();
    for (let seed = 0; seed < 200; seed += 1)
      received.add(mismatchPairing(instances, { seed }).pairs[0]?.snapshotOf as string);
    // Instance i0 (repository r0) can receive any of the 30 instances of r1–r3.
    expect(received.size).toBeGreaterThan(25);
  });

  it("handles the edge cases: empty, exactly half, two instances", () => {
    expect(mismatchPairing([], { seed: 1 })).toEqual({ pairs: [] });
    const two = [
      { instance_id: "a-1", repo: "a/a", base_commit: "1" },
      { instance_id: "b-1", repo: "b/b", base_commit: "2" },
    ];
    expect(mismatchPairing(two, { seed: 5 }).pairs).toEqual([
      { instanceId: "a-1", snapshotOf: "b-1", repo: "a/a", snapshotRepo: "b/b", snapshotCommit: "2" },
      { instanceId: "b-1", snapshotOf: "a-1", repo: "b/b", snapshotRepo: "a/a", snapshotCommit: "1" },
    ]);
    const half = [
      ...two,
      { instance_id: "a-2", repo: "A/A", base_commit: "3" },
      { instance_id: "c-1", repo: "c/c", base_commit: "4" },
    ];
    expectValidPairing(half, mismatchPairing(half, { seed: 9 }));
  });

  it("says clearly when no pairing exists, and refuses bad input", () => {
    const one = [
      { instance_id: "django-1", repo: "django/django", base_commit: "1" },
      { instance_id: "django-2", repo: "django/django", base_commit: "2" },
    ];
    expect(() => mismatchPairing(one, { seed: 1 })).toThrow("django/django holds 2 of 2 instances");
    const skewed = [...one, { instance_id: "sympy-1", repo: "sympy/sympy", base_commit: "3" }];
    expect(() => mismatchPairing(skewed, { seed: 1 })).toThrow(
      "mismatchPairing: cannot give every instance another repository's snapshot: django/django holds 2 of 3 instances",
    );
    expect(() => mismatchPairing([one[0] as SnapshotInstance], { seed: 1 })).toThrow("holds 1 of 1");
    expect(() => mismatchPairing([...skewed, one[0] as SnapshotInstance], { seed: 1 })).toThrow(
      "duplicate instance_id django-1",
    );
    expect(() => mismatchPairing(skewed, { seed: 0.5 })).toThrow("integer seed");
  });
});
