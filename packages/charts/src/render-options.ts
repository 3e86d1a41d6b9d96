/** Options shared by every renderer. */
export interface RenderOptions {
  /**
   * Receives Vega-Lite and Vega warnings (non-fatal; errors always throw).
   * Default: `console.warn` with a "vega:" prefix. Pass `() => {}` to silence them.
   */
  readonly onWarning?: (message: string) => void;
}

export function defaultOnWarning(message: string): void {
  console.warn(`vega: ${message}`);
}
