import type { ControlComparison } from "@loclab/schemas";
import type { OverlayMark, SpanCoverage } from "./gold-overlay.js";
import type { Touch } from "./touches.js";

/**
 * The site's data contract: what `loclab report` writes and the page (assets/app.js) reads.
 * One small summary (`data/summary.js`) the page loads first, and one file per trajectory
 * (`data/t/<n>.js`) loaded when opened, so that the page's first paint never waits on the
 * trajectories (docs/guide/viewer.md). Every data file is a classic script calling
 * `loclabData(key, value)`: a page opened from disk (file://) may not fetch its own files,
 * but it may run sibling scripts.
 */
export const SITE_SCHEMA_VERSION = 1;

/** A value of a table cell: numbers, text, booleans; null where the row has none. */
export type SiteValue = string | number | boolean | null;

export interface SiteColumn {
  /** The name filter expressions use (`acc1`, `control`, …). */
  name: string;
  type: "string" | "number" | "boolean";
  description: string;
}

/** One cell of the run (seed × control × arm × model) with its metrics. */
export interface SiteCell {
  cell: string;
  seed: number | null;
  control: string;
  arm: string | null;
  model: string | null;
  /** Instances with a final record. */
  n: number;
  metrics: Record<string, number | null>;
  /** Final outcomes by name, `open` for keys without one. */
  outcomes: Record<string, number>;
}

/** Mean ± sample standard deviation of a metric over seeds, per control (and arm). */
export interface SiteAcrossSeeds {
  group: string;
  metric: string;
  mean: number | null;
  sd: number | null;
  seeds: number;
}

/**
 * Two cells on the binary metric over the instances both have: the discordant counts (a only,
 * b only), the exact McNemar p-value, and the exact (Clopper–Pearson) interval of the share of
 * discordant pairs that favour a, θ = aOnly / (aOnly + bOnly): θ = ½ is no difference.
 */
export interface SitePair {
  a: string;
  b: string;
  n: number;
  aRate: number | null;
  bRate: number | null;
  aOnly: number;
  bOnly: number;
  p: number | null;
  thetaLower: number | null;
  thetaUpper: number | null;
}

export interface SiteChart {
  title: string;
  /** The Vega-Lite spec (from @loclab/charts), shown with the chart. */
  spec: unknown;
  /** Rendered at report time: the page needs no chart library and no network. */
  svg: string;
}

export interface SiteSummary {
  kind: "loclab.site-summary";
  schemaVersion: typeof SITE_SCHEMA_VERSION;
  title: string;
  source: { kind: "run" | "imported"; dir: string; format: string };
  generatedAt: string;
  /** Grows with every rebuild of a live site (`loclab view`), so the page knows to reload. */
  revision: number;
  /** Set by `loclab view`: the page listens on `/events` for new revisions (a static site served by any server does not). */
  live?: boolean;
  /** The run's binary success per row (`acc1` for localization, `resolved` for repair): the pair view's. */
  binary: string;
  columns: SiteColumn[];
  /** Column-major: `rows[column][i]` is row i's value; `rows.t[i]` its trajectory file (-1: none). */
  rows: Record<string, SiteValue[]>;
  cells: SiteCell[];
  acrossSeeds: SiteAcrossSeeds[];
  /** The run's own comparisons (each control against plain, per seed and pooled: `loclab run score`). */
  comparisons: ControlComparison[];
  pairs: SitePair[];
  charts: SiteChart[];
  /** The run's manifest (spec, versions, endpoints), as written. */
  manifest: unknown;
  /** Problems met while reading (a trajectory that would not parse…): shown, never fatal. */
  problems: string[];
}

export interface ViewNote {
  kind: "recovery" | "budget" | "error" | "harness";
  text: string;
}

export interface ViewCall {
  name: string;
  arguments: Record<string, unknown>;
  observation: string | null;
  ok: boolean | null;
  /** What the call looked at, with its mark against the gold (paths as the agent named them). */
  touches: (Touch & { mark: OverlayMark | null; original?: string })[];
}

export interface ViewStep {
  index: number;
  output: string | null;
  finishReason: string | null;
  tokens: number | null;
  calls: ViewCall[];
  notes: ViewNote[];
}

export interface TrajectoryView {
  kind: "loclab.site-trajectory";
  schemaVersion: typeof SITE_SCHEMA_VERSION;
  id: number;
  instanceId: string;
  cell: string | null;
  format: string;
  /** The file it was read from, relative to the folder the site was made from. */
  source: string;
  exit: string | null;
  outcome: string | null;
  error: string | null;
  model: string | null;
  /** The issue as the model was given it; `original` when a control changed it (masked, shuffled). */
  issue: { shown: string; original: string | null } | null;
  steps: ViewStep[];
  /** The gold and how close the trajectory came (absent when the instance's gold is unknown). */
  gold: { files: string[]; spans: SpanCoverage[]; nearLines: number } | null;
  /** Why there is no gold overlay when the trajectory could have had one (a cleared shuffle mapping…). */
  overlayNote: string | null;
  /** Shuffled cells: each workspace path the trajectory named → its original path. */
  pathMap: Record<string, string> | null;
  /** The final answer: locations (original paths) and the five-field finding. */
  final: {
    files: string[];
    locations: {
      path: string;
      startLine: number;
      endLine: number;
      role?: string;
      symbol?: string;
      mark: OverlayMark | null;
    }[];
    finding: Record<string, string> | null;
  } | null;
  judge: unknown;
  repair: {
    resolved: boolean;
    status: string;
    patch: string | null;
    goldPatch: string | null;
    tests: { name: string; expected: "FAIL_TO_PASS" | "PASS_TO_PASS"; passed: boolean }[];
  } | null;
  /** An FGL-scored candidate: y+'s added lines, each token with the frozen fixer's log p (the heat map). */
  fgl?: {
    candidate: string;
    teacher: boolean;
    score: number;
    meanLogprob: number;
    ctxTokens: number;
    extraReads: number;
    lines: { text: string; tokens: [string, number][] }[];
  };
}
