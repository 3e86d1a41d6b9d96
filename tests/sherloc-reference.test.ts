import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadBenchmark } from "@loclab/datasets";
import { sherlocGoldLocations } from "@loclab/gold";
import {
  type SherlocAggregate,
  type SherlocInstanceScores,
  type SherlocLocation,
  type SherlocPredictionTargets,
  aggregateSherloc,
  scoreSherloc,
  sherlocInstanceScores,
} from "@loclab/metrics";
import { describe, expect, it } from "vitest";

// SHERLOC's own evaluator run on committed inputs (tests/fixtures/sherloc/generate.py, with
// the official files saved outside the repository): loclab's `sherloc` preset must give the
// same answer on every case and every field. Equality is exact: the same float operations in
// the same order give the same doubles.

/** A location as the fixture keeps it: [file, start, end], [file] (no range), or a text line. */
type CompactLocation = [string, number, number] | [string] | { raw: string };
interface Entry {
  instance_id: string;
  kind: string;
  status: string;
  patch?: string;
  locations: CompactLocation[];
  /** `eval_status[0]`, one value per `Fixture.evalFields` entry (`file_level.recall`, …). */
  eval: number[];
}
interface Fixture {
  python: string;
  official: { commits: Record<string, string> };
  evalFields: string[];
  patches: Record<string, { patch: string; locations: unknown[]; locations_with_new_files: unknown[] }>;
  gold: Record<"lite" | "verified", Record<string, [string, number, number][]>>;
  runs: Record<string, { entries: (Entry | null)[]; aggregate: SherlocAggregate }>;
}

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "sherloc", "reference.json"), "utf8"),
) as Fixture;
const patchOf = new Map<string, string>();
for (const name of ["lite", "verified"] as const)
  for (const row of (await loadBenchmark(name)).instances) patchOf.set(row.instance_id, row.patch);

/** Every field where two plain JSON values differ, as `path: expected ≠ actual`. */
function differences(expected: unknown, actual: unknown, path: string): string[] {
  if (typeof expected === "object" && expected !== null && typeof actual === "object" && actual !== null) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].flatMap((key) =>
      differences(
        (expected as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
      ),
    );
  }
  return Object.is(expected, actual) ? [] : [`${path}: ${JSON.stringify(expected)} ≠ ${JSON.stringify(actual)}`];
}

const goldOf = (entry: Entry) => sherlocGoldLocations(entry.patch ?? (patchOf.get(entry.instance_id) as string));
const locationsOf = (entry: Entry): SherlocLocation[] =>
  entry.locations.map((location) =>
    Array.isArray(location)
      ? location.length === 3
        ? { file_path: location[0], start_line: location[1], end_line: location[2] }
        : { file_path: location[0] }
      : { raw: location.raw },
  );
const generationOf = (entry: Entry) => ({ status: entry.status, locations: locationsOf(entry) });
/** An instance's scores laid out as the fixture's `eval` array. */
const flatten = (scores: SherlocInstanceScores) =>
  fixture.evalFields.map((field) =>
    field.split(".").reduce<unknown>((value, part) => (value as Record<string, unknown>)[part], scores),
  );
const AGGREGATE_KEYS = Object.keys(Object.values(fixture.runs)[0]?.aggregate ?? {});

describe("sherloc preset = SHERLOC's own evaluator (tests/fixtures/sherloc/reference.json)", () => {
  it("names the official commits it was made from", () => {
    expect(fixture.official.commits).toEqual({
      "recipes/sherloc/evaluation/sherloc.py": "00c42873d371dd9b07b1e525ec85b66995bf1a13",
      "recipes/sherloc/inference/sherloc_utils/patch_processor.py": "76cddfb2bd3bdf3fc281f46ad833a0d2618e3689",
      "recipes/sherloc/metrics/sherloc.py": "1a19e2fe37642ef4eb718ffd8a6f2297a5c49c80",
      "nemo_skills/evaluation/metrics/base.py": "13aef0829cc2bc17e76213ebc08afddfae2a8dc9",
      "recipes/sherloc/inference/sherloc_utils/dialog_processor.py": "977d1fb920356c6b7ffb6bdbc9fa457a18d45ecb",
    });
  });

  it("gold locations of the crafted patches, with and without created files", () => {
    const names = Object.keys(fixture.patches);
    expect(names.length).toBeGreaterThanOrEqual(20);
    const diffs = names.flatMap((name) => {
      const { patch, locations, locations_with_new_files } = fixture.patches[name] as Fixture["patches"][string];
      return [
        ...differences(locations, sherlocGoldLocations(patch), `${name}`),
        ...differences(
          locations_with_new_files,
          sherlocGoldLocations(patch, { excludeNewFiles: false }),
          `${name}[new files]`,
        ),
      ];
    });
    expect(diffs).toEqual([]);
  });

  it("gold locations of all 800 Lite and Verified patches", () => {
    const diffs: string[] = [];
    let count = 0;
    for (const [benchmark, byId] of Object.entries(fixture.gold)) {
      for (const [id, expected] of Object.entries(byId)) {
        count += 1;
        const patch = patchOf.get(id);
        if (patch === undefined) {
          diffs.push(`${benchmark}/${id}: not in loclab's benchmark`);
          continue;
        }
        const actual = sherlocGoldLocations(patch).map((location) => [
          location.file_path,
          location.start_line,
          location.end_line,
        ]);
        diffs.push(...differences(expected, actual, `${benchmark}/${id}`));
      }
    }
    expect(count).toBe(800);
    expect(diffs).toEqual([]);
  });

  it.each(Object.keys(fixture.runs))("run %s: every entry's scores, every field", (name) => {
    const run = fixture.runs[name] as Fixture["runs"][string];
    const entries = run.entries.filter((entry): entry is Entry => entry !== null);
    expect(new Set(entries.map((entry) => entry.kind)).size).toBeGreaterThan(name === "edge" ? 5 : 12);
    expect(fixture.evalFields).toHaveLength(21);
    const diffs = entries.flatMap((entry, index) => {
      const actual = flatten(sherlocInstanceScores(goldOf(entry), generationOf(entry)));
      return fixture.evalFields.flatMap((field, f) =>
        differences(entry.eval[f], actual[f], `${name}[${index}] ${entry.instance_id} (${entry.kind}) ${field}`),
      );
    });
    expect(diffs).toEqual([]);
  });

  it.each(Object.keys(fixture.runs))("run %s: the aggregate SHERLOC reports, every key", (name) => {
    const run = fixture.runs[name] as Fixture["runs"][string];
    const entries = run.entries.filter((entry): entry is Entry => entry !== null);
    const aggregate = aggregateSherloc(
      entries.map((entry) => ({
        status: entry.status,
        scores: sherlocInstanceScores(goldOf(entry), generationOf(entry)),
      })),
    );
    expect(Object.keys(aggregate).sort()).toEqual([...AGGREGATE_KEYS].sort());
    expect(differences(run.aggregate, aggregate, name)).toEqual([]);
  });

  it.each(["lite", "verified"])(
    "run %s through loclab's predictions (scoreSherloc): SHERLOC's aggregate, and its values as fractions",
    (name) => {
      const run = fixture.runs[name] as Fixture["runs"][string];
      const entries = run.entries.filter((entry): entry is Entry => entry !== null);
      const predictions = new Map<string, SherlocPredictionTargets>(
        entries.map((entry) => [
          entry.instance_id,
          {
            status: entry.status,
            files: entry.locations.flatMap((location) =>
              Array.isArray(location) && location.length === 1 ? [location[0]] : [],
            ),
            locations: entry.locations.flatMap((location) =>
              Array.isArray(location) && location.length === 3
                ? [{ path: location[0], startLine: location[1], endLine: location[2] }]
                : [],
            ),
          },
        ]),
      );
      const gold = new Map(entries.map((entry) => [entry.instance_id, goldOf(entry)]));
      const report = scoreSherloc({ instanceIds: entries.map((entry) => entry.instance_id), gold, predictions });
      expect(differences(run.aggregate, report.sherloc, name)).toEqual([]);
      for (const key of [
        "file_recall",
        "file_precision",
        "chunk_coverage_recall",
        "chunk_precision",
        "chunk_avg_tightness",
      ] as const) {
        expect(report.metrics[`sherloc.${key}`]?.value).toBeCloseTo((run.aggregate[key] as number) / 100, 12);
      }
      expect(report.n).toBe(run.aggregate.samples_with_gt);
    },
  );
});
