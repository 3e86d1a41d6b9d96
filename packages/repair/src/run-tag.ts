import { createHash } from "node:crypto";
import { resolve } from "node:path";

/** The label every container of a repair run carries (sandboxes and evaluation containers): `loclab.repair.run`. */
export const REPAIR_RUN_LABEL = "loclab.repair.run";

/**
 * A repair run's tag: `repair-` and 12 hex digits of the run folder's absolute path. Its
 * containers are labelled with it (sandboxes `loclab.repair.run`, evaluation containers
 * `loclab.eval.run`), so that a session removes what a killed one left — the run lock makes
 * sure no other runner of this folder is using them. A folder moved after a kill keeps its
 * old containers; `docker rm` by the label clears them.
 */
export function repairRunTag(out: string): string {
  return `repair-${createHash("sha256").update(resolve(out)).digest("hex").slice(0, 12)}`;
}
