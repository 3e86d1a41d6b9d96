/**
 * Logger handed to both vega-lite (compile) and vega (dataflow).
 *
 * Why our own logger: vega *logs* runtime failures (a data source that fails to load,
 * an operator that throws) and still resolves `view.toSVG()` with an empty chart.
 * Collecting errors here lets the renderers throw instead of writing a blank figure.
 * Warnings (e.g. a channel Vega-Lite had to drop) go to `onWarning`, by default
 * console.warn, so they stay visible in notebooks without failing the cell.
 *
 * Closures, not a class: vega calls the methods with `this` bound to its dataflow
 * (`this._log[method].apply(this, arguments)`), so `this` cannot be used inside them.
 */
export interface VegaLogger {
  level(level?: number): number | VegaLogger;
  error(...args: unknown[]): VegaLogger;
  warn(...args: unknown[]): VegaLogger;
  info(...args: unknown[]): VegaLogger;
  debug(...args: unknown[]): VegaLogger;
}

export interface RenderLog {
  readonly logger: VegaLogger;
  readonly errors: readonly string[];
  readonly warnings: readonly string[];
}

/** vega-util's level constant for "warnings and errors". */
const WARN_LEVEL = 2;

export function createRenderLog(onWarning: (message: string) => void): RenderLog {
  const errors: string[] = [];
  const warnings: string[] = [];
  const logger: VegaLogger = {
    // Fixed at Warn: a caller setting a lower level must not hide errors.
    level: (level?: number) => (level === undefined ? WARN_LEVEL : logger),
    error: (...args: unknown[]) => {
      errors.push(formatLogArgs(args));
      return logger;
    },
    warn: (...args: unknown[]) => {
      const message = formatLogArgs(args);
      warnings.push(message);
      onWarning(message);
      return logger;
    },
    info: () => logger,
    debug: () => logger,
  };
  return { logger, errors, warnings };
}

function formatLogArgs(args: readonly unknown[]): string {
  return args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(" ");
}
