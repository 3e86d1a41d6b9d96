import type { z } from "zod";

/**
 * Renders a zod error as one line per issue, `field.path: message`, so that an error about
 * a JSONL record or a CLI flag names the field that is wrong, not only that something is.
 */
export function formatZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
