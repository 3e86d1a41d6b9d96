import { parseRunSpec } from "./load-run-spec.js";
import type { RunSpec } from "./run-spec.js";

/** What `loclab localize` (and the reproduce demo) runs: one cell, one endpoint. */
export interface LocalizeSpecOptions {
  benchmark: string;
  /** The instance ids (all when none). */
  instances?: readonly string[];
  repos: string;
  endpoint: string;
  model: string;
  toolMode?: "native" | "text";
  /** `sherloc`: SHERLOC's protocol, tools and settings (docs/definitions.md §1). */
  profile?: "loclab" | "sherloc";
  maskPaths?: boolean;
  seed?: number;
  temperature?: number;
  maxTokens?: number;
  requestTimeoutSeconds?: number;
  callDeadlineSeconds?: number;
  maxTurns?: number;
  concurrency?: number;
  /** Wait before the first retry of a failed request, seconds (doubling). */
  backoffSeconds?: number;
  apiKeyEnv?: string;
  out: string;
  dataDir?: string;
}

/**
 * The run spec of `loclab localize`: the whole benchmark (or `instances`), one seed (or none),
 * one control (`plain`, or `masked` at the default level with `maskPaths`), one endpoint.
 * The shorthand for a one-cell run over the same code path as `loclab run`.
 */
export function localizeSpec(options: LocalizeSpecOptions): RunSpec {
  const ids = options.instances;
  return parseRunSpec(
    {
      benchmark: options.benchmark,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(ids && ids.length > 0 ? { instances: [...ids] } : {}),
      ...(options.seed !== undefined ? { seeds: [options.seed] } : {}),
      controls: [options.maskPaths ? { kind: "masked" } : { kind: "plain" }],
      endpoints: [
        {
          baseURL: options.endpoint,
          model: options.model,
          maxConcurrency: options.concurrency ?? 1,
          ...(options.apiKeyEnv ? { apiKeyEnv: options.apiKeyEnv } : {}),
        },
      ],
      localizer: {
        maxTurns: options.maxTurns ?? 20,
        toolMode: options.toolMode ?? "native",
        ...(options.profile && options.profile !== "loclab" ? { profile: options.profile } : {}),
        ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
        ...(options.maxTokens !== undefined ? { maxOutputTokens: options.maxTokens } : {}),
        ...(options.requestTimeoutSeconds !== undefined
          ? { requestTimeoutSeconds: options.requestTimeoutSeconds }
          : {}),
        ...(options.callDeadlineSeconds !== undefined ? { callDeadlineSeconds: options.callDeadlineSeconds } : {}),
      },
      ...(options.backoffSeconds !== undefined ? { retry: { backoffSeconds: options.backoffSeconds } } : {}),
      repos: options.repos,
      out: options.out,
    },
    { source: "loclab localize" },
  );
}
