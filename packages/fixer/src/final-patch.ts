import type { PatchOverLimit } from "./fixer-toolbox.js";
import { type PatchLimits, patchOverLimitNote } from "./sandbox-limits.js";
import type { Sandbox } from "./sandbox.js";

/** An attempt's final patch within the limits, or "" and why it is over them. */
export interface FinalPatch {
  patch: string;
  patchOverLimit?: PatchOverLimit;
}

/**
 * The final patch of an attempt: a submission handed in as text (mini-swe-agent's) checked
 * against the patch limit, or the repository's diff, taken bounded (an oversized binary file is
 * never hashed, a diff over the limit never kept). Over a limit, the patch is "" and
 * `patchOverLimit` says why: the record's verdict is `patch-too-large`, nothing is evaluated.
 */
export async function finalPatch(sandbox: Sandbox, limits: PatchLimits, submitted?: string): Promise<FinalPatch> {
  if (submitted !== undefined) {
    const bytes = Buffer.byteLength(submitted, "utf8");
    if (bytes <= limits.maxBytes) return { patch: submitted };
    const over = { bytes, oversized: [] };
    return { patch: "", patchOverLimit: { ...over, note: patchOverLimitNote(over, limits) } };
  }
  const diff = await sandbox.diff(limits);
  if (diff.complete) return { patch: diff.patch };
  const over = { bytes: diff.bytes, oversized: diff.oversized };
  return { patch: "", patchOverLimit: { ...over, note: patchOverLimitNote(over, limits) } };
}
