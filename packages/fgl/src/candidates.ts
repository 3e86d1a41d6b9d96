import { LocationSchema } from "@loclab/schemas";
import { z } from "zod";
import { type FglLocation, locationSetKey, mergeLocations } from "./fgl-location.js";

/** How a candidate came about (docs/definitions.md §5). */
export type CandidateKind = "teacher" | "sample" | "edited-only" | "viewed-only" | "teacher-minus-one";

/** One candidate localization z_k of a task. */
export interface Candidate {
  task: string;
  /** Unique within the task: `teacher`, `edited-only`, `viewed-only`, `teacher-minus-3`, `sample-seed-7`. */
  id: string;
  kind: CandidateKind;
  /** The teacher's own localization (the anchor of the weights). */
  teacher: boolean;
  /** At most `maxLocations`, merged per file, edits first. */
  locations: FglLocation[];
  provenance: {
    /** The trajectory or run the candidate was derived from. */
    source: string;
    seed?: number | null;
    /** Locations beyond the cap that were dropped. */
    dropped?: number;
    /** Ids of later candidates with the same set of path × line ranges, folded into this one. */
    duplicates?: string[];
  };
}

/** One line of a candidates file (`loclab fgl candidates --out`): a `Candidate` with `schemaVersion`. */
export const CandidateRecordSchema = z.looseObject({
  task: z.string().min(1),
  id: z.string().min(1),
  kind: z.enum(["teacher", "sample", "edited-only", "viewed-only", "teacher-minus-one"]),
  teacher: z.boolean(),
  locations: z.array(LocationSchema).min(1),
  provenance: z.looseObject({
    source: z.string(),
    seed: z.number().int().nullable().optional(),
    dropped: z.number().int().optional(),
    duplicates: z.array(z.string()).optional(),
  }),
});

/** A localizer's sample for the task: its locations, from one seed of a run. */
export interface CandidateSample {
  /** Null for a run without seeds (`cells/seed-none`). */
  seed: number | null;
  locations: readonly FglLocation[];
  source: string;
}

export interface BuildCandidatesInput {
  task: string;
  teacher?: { edits: readonly FglLocation[]; reads: readonly FglLocation[]; source: string };
  samples?: readonly CandidateSample[];
  /** Locations per candidate; default 8. */
  maxLocations?: number;
}

/** Merged per file, edits before reads, at most `max`; how many were dropped. */
export function capLocations(
  locations: readonly FglLocation[],
  max: number,
): { locations: FglLocation[]; dropped: number } {
  const merged = mergeLocations(locations);
  const ordered = [...merged.filter((l) => l.role === "edit"), ...merged.filter((l) => l.role !== "edit")];
  return { locations: ordered.slice(0, max), dropped: Math.max(0, ordered.length - max) };
}

/**
 * The candidates of a task (docs/definitions.md §5): the teacher's localization (its edited
 * code and the code it viewed before the first edit), the simple variants — edited code only,
 * viewed code only, the teacher minus one item (one per item, when it has two or more) — and
 * the localizer's K samples; each merged per file and capped at `maxLocations` (edits kept
 * first), then de-duplicated on the set of path × line ranges, the first in that order kept
 * (so the teacher wins its ties) and the others named in its `duplicates`. Empty ones are left out.
 */
export function buildCandidates(input: BuildCandidatesInput): Candidate[] {
  const max = input.maxLocations ?? 8;
  const drafts: Array<Omit<Candidate, "task">> = [];
  const add = (
    id: string,
    kind: CandidateKind,
    locations: readonly FglLocation[],
    source: string,
    seed?: number | null,
  ) => {
    const capped = capLocations(locations, max);
    if (capped.locations.length === 0) return;
    drafts.push({
      id,
      kind,
      teacher: kind === "teacher",
      locations: capped.locations,
      provenance: {
        source,
        ...(seed !== undefined ? { seed } : {}),
        ...(capped.dropped > 0 ? { dropped: capped.dropped } : {}),
      },
    });
  };
  const teacher = input.teacher;
  if (teacher) {
    add("teacher", "teacher", [...teacher.edits, ...teacher.reads], teacher.source);
    add("edited-only", "edited-only", teacher.edits, teacher.source);
    add("viewed-only", "viewed-only", teacher.reads, teacher.source);
    const items = drafts[0]?.kind === "teacher" ? drafts[0].locations : [];
    if (items.length >= 2)
      items.forEach((_, i) =>
        add(
          `teacher-minus-${i + 1}`,
          "teacher-minus-one",
          items.filter((_, j) => j !== i),
          teacher.source,
        ),
      );
  }
  for (const sample of input.samples ?? [])
    add(`sample-seed-${sample.seed ?? "none"}`, "sample", sample.locations, sample.source, sample.seed);
  const kept = new Map<string, Omit<Candidate, "task">>();
  for (const draft of drafts) {
    const key = locationSetKey(draft.locations);
    const first = kept.get(key);
    if (first) (first.provenance.duplicates ??= []).push(draft.id);
    else kept.set(key, draft);
  }
  return [...kept.values()].map((candidate) => ({ task: input.task, ...candidate }));
}
