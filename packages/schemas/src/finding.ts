import { z } from "zod";

const field = (name: string) =>
  z.string().refine((text) => text.trim().length > 0, { message: `${name} must not be empty` });

/**
 * The structured diagnostic finding of SHERLOC (docs/definitions.md §1): the five fields a localizer
 * hands to a downstream repair agent. Each must say something: an empty root cause is an
 * invalid finding, not a finding with nothing to add.
 */
export const FindingSchema = z.object({
  /** Why these locations: what in the code ties them to the issue. */
  locationExplanation: field("locationExplanation"),
  /** The defect itself, in terms of the code's behaviour. */
  rootCause: field("rootCause"),
  /** How a fix would go, concretely enough for a repair agent to act on. */
  solutionIdea: field("solutionIdea"),
  /** Other code that the fix touches or must stay consistent with. */
  dependencies: field("dependencies"),
  /** Which tests exercise the change, or should be added. */
  testingImpact: field("testingImpact"),
});

export type Finding = z.infer<typeof FindingSchema>;
