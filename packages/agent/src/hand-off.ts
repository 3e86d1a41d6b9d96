import type { Finding, Prediction } from "@loclab/schemas";

/**
 * What a repair agent is handed before it starts (SHERLOC's transfer; docs/definitions.md §9):
 * `locations`, the files and spans alone; `findings`, the spans and the five-field finding. Its
 * source is the localizer's prediction, or the gold patch for the `oracle` arm (then the spans
 * are the gold spans and there is no finding).
 */
export interface HandOff {
  kind: "locations" | "findings";
  prediction: Pick<Prediction, "files" | "locations" | "finding">;
}

/**
 * The hand-off as the repair agent reads it: one renderer for every framework that is handed
 * one (loclab's fixer, mini-swe-agent), so that arms differ in what they are given, never in how
 * it is worded. The same words whatever the source: an oracle's gold spans read as a perfect
 * localizer's would. A `findings` hand-off of a prediction without a finding renders its
 * locations alone.
 */
export function renderHandOff(handOff: HandOff): string {
  const { prediction } = handOff;
  const finding = handOff.kind === "findings" ? prediction.finding : undefined;
  return [
    finding ? "## Localization finding" : "## Localization",
    "",
    finding
      ? "A localization agent examined the repository for this issue. Its finding:"
      : "A localization agent examined the repository for this issue. Where it found the problem:",
    "",
    "Locations (best first):",
    locationLines(prediction),
    "",
    ...(finding ? [findingLines(finding), ""] : []),
  ].join("\n");
}

/** One line per location (`- path:start-end (role, symbol)`), else per file; `- (none)` when neither. */
export function locationLines(prediction: Pick<Prediction, "files" | "locations">): string {
  if (prediction.locations.length > 0) {
    return prediction.locations
      .map(
        (location) =>
          `- ${location.path}:${location.startLine}-${location.endLine}${location.role ? ` (${location.role}${location.symbol ? `, ${location.symbol}` : ""})` : location.symbol ? ` (${location.symbol})` : ""}`,
      )
      .join("\n");
  }
  return prediction.files.length > 0 ? prediction.files.map((file) => `- ${file}`).join("\n") : "- (none)";
}

/** The five fields, root cause first. */
export function findingLines(finding: Finding): string {
  return [
    `Root cause: ${finding.rootCause}`,
    `Location explanation: ${finding.locationExplanation}`,
    `Solution idea: ${finding.solutionIdea}`,
    `Dependencies: ${finding.dependencies}`,
    `Testing impact: ${finding.testingImpact}`,
  ].join("\n");
}
