/**
 * Plot-area size in pixels. Omitted dimensions keep Vega-Lite's defaults: a fixed
 * step (20 px) per category on discrete axes, so charts grow with their data instead
 * of squeezing 50 repository names into a fixed width.
 */
export interface ChartSize {
  readonly width?: number;
  readonly height?: number;
}

/** Only the dimensions that were given, ready to spread into a spec. */
export function sizeProperties(size: ChartSize): { width?: number; height?: number } {
  return {
    ...(size.width === undefined ? {} : { width: size.width }),
    ...(size.height === undefined ? {} : { height: size.height }),
  };
}
