import { z } from "zod";

/**
 * What a location is for: `edit` (the fix changes it) or `read` (context the fixer needs).
 * FGL candidates mix both (docs/definitions.md §1, §5); gold spans are always `edit`.
 */
export const LocationRoleSchema = z.enum(["edit", "read"]);
export type LocationRole = z.infer<typeof LocationRoleSchema>;

/**
 * A file plus a 1-based, inclusive line span in the pre-image (the repository at
 * `base_commit`), optionally naming the symbol it covers (docs/definitions.md §2, §3).
 * `startLine > endLine` and non-positive lines are refused with a message naming the field.
 */
export const LocationSchema = z
  .object({
    path: z.string().min(1, "path must not be empty"),
    startLine: z.number().int().positive(),
    endLine: z.number().int().positive(),
    symbol: z.string().min(1).optional(),
    role: LocationRoleSchema.default("edit"),
  })
  .refine((loc) => loc.startLine <= loc.endLine, {
    message: "startLine must not be greater than endLine",
    path: ["endLine"],
  });

export type Location = z.output<typeof LocationSchema>;
export type LocationInput = z.input<typeof LocationSchema>;
