import { readFileSync } from "node:fs";

/** The committed scipy / mpmath reference values (fixtures/generate.py). */
export interface Reference {
  versions: Record<string, string>;
  mcnemar: {
    b: number;
    c: number;
    p: number;
    midP: number;
    logP?: number;
    pMp?: number;
    midPMp?: number;
    logPMp?: number;
  }[];
  binomialTails: { k: number; n: number; p: number; cdf: number; sf: number; logPmfMp: number }[];
  normalQuantile: { p: number; z: number; zMp: number }[];
  normalCdf: { z: number; p: number; pMp: number }[];
  intervals: {
    successes: number;
    n: number;
    confidence: number;
    wilson: [number, number];
    clopperPearson: [number, number];
    clopperPearsonMp?: [number, number];
  }[];
  pairedSampleSize: { psi: number; delta: number; alpha: number; power: number; nExact: number; n: number }[];
  pairedPower: { psi: number; delta: number; n: number; alpha: number; power: number }[];
  pairedMinimumDetectableEffect: { psi: number; n: number; alpha: number; power: number; delta: number }[];
  holm: { p: number[]; adjusted: number[] }[];
  clusteredStandardError: { values: number[]; clusters: string[]; mean: number; standardError: number }[];
}

export const reference = JSON.parse(
  readFileSync(new URL("../fixtures/scipy-reference.json", import.meta.url), "utf8"),
) as Reference;

/** |actual − expected| / |expected|; 0 when both are 0, Infinity when only expected is 0. */
export function relativeError(actual: number, expected: number): number {
  if (actual === expected) return 0;
  if (expected === 0) return Math.abs(actual) === 0 ? 0 : Infinity;
  return Math.abs(actual - expected) / Math.abs(expected);
}

/** Error of a logarithm as the relative error of the number it stands for: |a − e| / max(1, |e|). */
export function logError(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.max(1, Math.abs(expected));
}

/** Runs `check` over rows and returns the worst relative error with the row that gave it. */
export function worst<T>(rows: readonly T[], errors: (row: T) => number[]): { error: number; row: T | undefined } {
  let error = 0;
  let row: T | undefined;
  for (const r of rows) {
    for (const e of errors(r)) {
      if (!(e <= error)) {
        error = e;
        row = r;
      }
    }
  }
  return { error, row };
}
