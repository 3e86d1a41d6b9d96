import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { readLoclabPredictions } from "@loclab/predictions";
import type { CandidateSample } from "./candidates.js";

/**
 * FGL's sampling of the localizer (docs/definitions.md §5): K = 8 samples at temperature 0.8,
 * at most 8 locations each. As a loclab run spec: `"seeds": [1, 2, 3, 4, 5, 6, 7, 8]` and
 * `"localizer": { "temperature": 0.8, "maxLocations": 8 }` (`fglSampleSeeds()` gives the seeds);
 * `samplesFromRun` then reads the run's predictions as the candidates' samples.
 */
export const FGL_SAMPLING = { samples: 8, temperature: 0.8, maxLocations: 8 } as const;

/** The seeds 1…K of a sampling run (default K = 8). */
export function fglSampleSeeds(samples: number = FGL_SAMPLING.samples): number[] {
  if (!Number.isInteger(samples) || samples < 1)
    throw new RangeError(`samples must be a positive integer, not ${samples}`);
  return Array.from({ length: samples }, (_, i) => i + 1);
}

/**
 * The K samples of a localizer run (docs/definitions.md §5): per instance, the locations of every
 * seed's prediction in the run's plain cells (`cells/seed-<s>/plain/predictions.jsonl`, the
 * runner's layout; a run without seeds has one, `seed-none`). Masked, shuffled and mismatched
 * cells are not samples. A prediction without line locations gives no sample.
 */
export async function samplesFromRun(runDir: string): Promise<Map<string, CandidateSample[]>> {
  const cells = join(runDir, "cells");
  let seeds: string[];
  try {
    seeds = (await readdir(cells)).filter((name) => /^seed-(\d+|none)$/.test(name)).sort();
  } catch {
    throw new Error(`${runDir}: not a loclab run folder (no cells/)`);
  }
  const samples = new Map<string, CandidateSample[]>();
  for (const seedDir of seeds) {
    const file = join(cells, seedDir, "plain", "predictions.jsonl");
    let read;
    try {
      read = await readLoclabPredictions(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const prediction of read.predictions) {
      if (prediction.locations.length === 0) continue;
      const seed = prediction.seed ?? (seedDir === "seed-none" ? null : Number(seedDir.slice(5)));
      const list = samples.get(prediction.instanceId) ?? [];
      list.push({ seed, locations: prediction.locations, source: file });
      samples.set(prediction.instanceId, list);
    }
  }
  return samples;
}
