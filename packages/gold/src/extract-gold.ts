import { goldFromPatch } from "./gold-from-patch.js";
import type { GoldLocations } from "./gold-types.js";
import { PatchParseError } from "./patch-error.js";

/** The fields of an instance that gold extraction reads. */
export interface PatchedInstance {
  instance_id: string;
  patch: string;
}

export interface GoldFailure {
  instanceId: string;
  message: string;
  /** 1-based patch line, when the failure is a parse error. */
  patchLine?: number;
}

export interface ExtractGoldResult {
  golds: GoldLocations[];
  failures: GoldFailure[];
}

/**
 * Gold locations for many instances. One bad patch does not cost the others: failures are
 * collected with the instance id and reason (unless `onError: "throw"`), and the caller
 * decides whether any failure is fatal.
 */
export function extractGold(
  instances: readonly PatchedInstance[],
  options: { onError?: "collect" | "throw" } = {},
): ExtractGoldResult {
  const golds: GoldLocations[] = [];
  const failures: GoldFailure[] = [];
  for (const instance of instances) {
    try {
      golds.push(goldFromPatch(instance.patch, { instanceId: instance.instance_id }));
    } catch (error) {
      if (options.onError === "throw" || !(error instanceof PatchParseError)) throw error;
      failures.push({ instanceId: instance.instance_id, message: error.message, patchLine: error.patchLine });
    }
  }
  return { golds, failures };
}
