/**
 * The server's context window for `model`: `max_model_len` of its entry in the `/v1/models`
 * answer, as vLLM and `loclab serve` both advertise it; undefined when the server does not say.
 */
export function serverWindow(models: unknown, model: string): number | undefined {
  const data = (models as { data?: unknown } | undefined)?.data;
  if (!Array.isArray(data)) return undefined;
  const entry = data.find((item) => (item as { id?: unknown })?.id === model) as
    | { max_model_len?: unknown }
    | undefined;
  const window = entry?.max_model_len;
  return typeof window === "number" && Number.isInteger(window) && window > 0 ? window : undefined;
}

/** Tokens kept free for the answer when the spec sets no `maxOutputTokens`: a quarter of the window, at most 2,048. */
export function defaultOutputReserve(window: number): number {
  return Math.min(2048, Math.floor(window / 4));
}

/**
 * The prompt-token limit an attempt runs with (context truncation, docs/definitions.md §10): the
 * spec's `localizer.contextLimitTokens` when given, else the server's window less the output
 * budget (`maxOutputTokens`, or `defaultOutputReserve`); undefined when neither is known.
 * Pure.
 *
 * @example contextLimitFor({ window: 2048 }) // 1536
 */
export function contextLimitFor(options: {
  spec?: number | undefined;
  window?: number | undefined;
  maxOutputTokens?: number | undefined;
}): number | undefined {
  if (options.spec !== undefined) return options.spec;
  if (options.window === undefined) return undefined;
  const reserve = options.maxOutputTokens ?? defaultOutputReserve(options.window);
  return Math.max(1, options.window - reserve);
}
