import { z } from "zod";
import { FindingSchema } from "./finding.js";
import { InstanceIdSchema } from "./instance-id.js";
import { ControlSchema } from "./control.js";
import { LocationSchema } from "./location.js";
import { SherlocOutputLocationSchema } from "./sherloc-output.js";

/**
 * One localizer's answer for one instance (docs/definitions.md §3): files ranked best first, line-span
 * locations, optional module-level (`path:TopLevelName`) and function-level
 * (`path:Class.method`) rankings, and optionally the five-field finding (docs/definitions.md §1).
 *
 * Ranked lists are kept as given here; de-duplication and path normalization belong to the
 * readers and metrics, which report what they changed.
 */
export const PredictionSchema = z.object({
  instanceId: InstanceIdSchema,
  files: z.array(z.string().min(1)),
  locations: z.array(LocationSchema).default([]),
  modules: z.array(z.string().min(1)).optional(),
  functions: z.array(z.string().min(1)).optional(),
  finding: FindingSchema.optional(),
  /**
   * The generation's status as the localizer's own output gives it (SHERLOC: `success`,
   * `failed`, `skipped`) and why; the `sherloc` preset scores anything but `success` as 0.
   */
  status: z.string().min(1).optional(),
  reason: z.string().nullable().optional(),
  /**
   * The locations exactly as a SHERLOC output line wrote them (paths as written, `{raw}`
   * lines and odd ranges kept), which the `sherloc` preset scores as SHERLOC's evaluator
   * would; `locations` holds the usable ranges with normalized paths for loclab's own metrics.
   */
  sherlocLocations: z.array(SherlocOutputLocationSchema).optional(),
  /** For a prediction a run wrote: the sampling seed sent (`null`: none) and the control it ran under. */
  seed: z.number().int().nonnegative().nullable().optional(),
  control: ControlSchema.optional(),
});

export type Prediction = z.output<typeof PredictionSchema>;
export type PredictionInput = z.input<typeof PredictionSchema>;
