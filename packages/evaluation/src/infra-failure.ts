import type { ImagePython } from "./python-choice.js";

/**
 * Why an instance has no verdict: the infrastructure failed, not the patch. The harness counts
 * most of these as "error" and some (a container OOM-killed mid-run) as "unresolved"; loclab
 * names each and never counts it against the model.
 */
export type InfraFailureReason =
  | "daemon-error"
  | "image-missing"
  | "image-build-failed"
  | "environment-unsupported"
  | "mirror-missing"
  | "timeout"
  | "oom-killed"
  | "container-killed"
  | "eval-error"
  | "network-standin-failed";

export class InfraFailure extends Error {
  constructor(
    readonly reason: InfraFailureReason,
    message: string,
    /** The Python the failed image was for, when it was chosen before the failure (the outcome records it). */
    readonly python?: ImagePython,
  ) {
    super(message);
    this.name = "InfraFailure";
  }
}
