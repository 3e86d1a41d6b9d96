import { createHash } from "node:crypto";
import type { Control } from "@loclab/schemas";

/** What decides an attempt's result, apart from the model server: the attempt key's contents. */
export interface AttemptKeyInput {
  benchmark: string;
  instanceId: string;
  seed: number | null;
  control: Control;
  /** A repair run's arm (absent for localization, so its keys are what they were). */
  arm?: string;
  /** A repair run's framework other than loclab's fixer (absent for loclab's, so its keys are what they were). */
  framework?: string;
  /** The localizer settings and per-instance budgets, and the prompts' digest. */
  config: Record<string, unknown>;
}

/** JSON with object keys sorted at every depth and `undefined` fields left out: one text per value. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value))
    return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
}

/**
 * The attempt key (docs/definitions.md §10): sha256 of the canonical JSON of instance × seed ×
 * control × localizer config. Two attempts with the same key are the same experiment, so a
 * run does each key once; a changed setting (a prompt, a budget, the temperature) gives new
 * keys, never a silent mix of old and new results. The endpoint is not part of it: where an
 * attempt ran is recorded, not what it is.
 */
export function attemptKey(input: AttemptKeyInput): string {
  return createHash("sha256").update(canonicalJson(input)).digest("hex");
}
