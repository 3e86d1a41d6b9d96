import { siteCharts } from "./site-charts.js";
import { SITE_SCHEMA_VERSION, type SiteSummary } from "./site-types.js";

/** What each kind of site says itself; the rest of its summary is made here. */
export type SiteSummaryParts = Pick<SiteSummary, "title" | "source" | "binary" | "columns" | "rows" | "cells"> &
  Partial<Pick<SiteSummary, "acrossSeeds" | "comparisons" | "pairs" | "manifest" | "problems">> & {
    /** Grows with each rebuild of a live site; default 0. */
    revision?: number | undefined;
  };

/**
 * A site's summary: its own parts, the charts of its cells on its binary column, the time it
 * was made, and no comparisons, pairs, manifest or problems unless given (an imported folder
 * has none).
 */
export async function siteSummary(parts: SiteSummaryParts): Promise<SiteSummary> {
  return {
    kind: "loclab.site-summary",
    schemaVersion: SITE_SCHEMA_VERSION,
    title: parts.title,
    source: parts.source,
    generatedAt: new Date().toISOString(),
    revision: parts.revision ?? 0,
    binary: parts.binary,
    columns: parts.columns,
    rows: parts.rows,
    cells: parts.cells,
    acrossSeeds: parts.acrossSeeds ?? [],
    comparisons: parts.comparisons ?? [],
    pairs: parts.pairs ?? [],
    charts: await siteCharts(parts.cells, parts.binary),
    manifest: parts.manifest ?? null,
    problems: parts.problems ?? [],
  };
}
