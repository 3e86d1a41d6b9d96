import type { SandboxCounters } from "./sandbox-sweep.js";

/**
 * The limits every fixer sandbox runs under (docs/definitions.md §9, "sandbox limits"), sized
 * for one attempt on a shared machine: a model's commands are hostile input, and one command
 * must never take down the runner or the other attempts in flight.
 */
export interface SandboxLimits {
  /** Processes and threads at once (the container's pids.max): a fork bomb stops here. */
  processes: number;
  /** Memory in MiB, swap included (a larger allocation is ended by the kernel's OOM killer). */
  memoryMiB: number;
  /** CPUs the container may use (a CFS quota): a burner cannot starve the other attempts. */
  cpus: number;
  /** Bytes of a command's stdout and of its stderr kept in the runner's memory; the rest is counted and dropped. */
  keepBytes: number;
  /**
   * The container's writable layer in MiB (what its commands wrote over the image): a command
   * that passes it is killed and the attempt ends (exit `disk_limit`), so a disk filler cannot
   * fill the host. Measured through the engine while a command runs and after it.
   */
  diskMiB: number;
}

/**
 * The defaults: 1,024 processes (OpenClaw's sandbox; NemoClaw went to 512 after its fork-bomb
 * report), 4 GiB (a repository's test suite fits, SWE-bench's largest included), one CPU, and
 * 64 KiB of each stream (run_command shows 5,000 characters of each), and 4 GiB written over
 * the image (a build of the repository's extensions and its test caches take a few hundred MB).
 */
export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  processes: 1024,
  memoryMiB: 4096,
  cpus: 1,
  keepBytes: 64 * 1024,
  diskMiB: 4096,
};

/** How often a running command's writable layer is measured (ms): a filler writes at most about this long past the limit. */
export const DISK_POLL_MS = 1000;

/** A number as the notes write it: 1,024. */
function grouped(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * What the model is told when a command met a limit, one line each (empty when none): the
 * observation names the limit and its value, so that the model can change course.
 */
export function limitNotes(hit: SandboxCounters, limits: SandboxLimits): string[] {
  const notes: string[] = [];
  if (hit.memory > 0)
    notes.push(
      `killed: memory limit ${grouped(limits.memoryMiB)} MiB (the kernel ended ${hit.memory} process${hit.memory === 1 ? "" : "es"} of this command)`,
    );
  if (hit.processes > 0)
    notes.push(
      `fork failed: process limit ${grouped(limits.processes)} (${grouped(hit.processes)} fork${hit.processes === 1 ? "" : "s"} refused)`,
    );
  return notes;
}

/** What the model is told when a command passed the disk limit (the last thing it is told: the attempt ends). */
export function diskLimitNote(bytes: number, limits: SandboxLimits): string {
  return `killed: disk limit ${grouped(limits.diskMiB)} MiB (the container's writable layer holds ${grouped(Math.round(bytes / 2 ** 20))} MiB); the attempt ends here`;
}

/** The note on processes a command left running, which the sweep ended. */
export function leftoverNote(left: number, commands: readonly string[]): string | undefined {
  if (left === 0) return undefined;
  const shown = commands.map((command) => `\`${command}\``).join(", ");
  const more = left > commands.length ? ` and ${grouped(left - commands.length)} more` : "";
  return `ended after the command: ${grouped(left)} process${left === 1 ? "" : "es"} it left running (${shown}${more}); every command starts with none`;
}

/**
 * The final patch's limits: a patch over `maxBytes`, or one that would carry a binary file over
 * `maxBinaryFileBytes`, is neither stored whole nor evaluated (verdict `patch-too-large`). The
 * defaults are far above any SWE-bench gold patch and far below what a disk filler leaves.
 */
export interface PatchLimits {
  maxBytes: number;
  maxBinaryFileBytes: number;
}

export const DEFAULT_PATCH_LIMITS: PatchLimits = { maxBytes: 2 * 2 ** 20, maxBinaryFileBytes: 2 ** 20 };

/** Why a diff is over the patch limits, in the words the model and the record get. */
export function patchOverLimitNote(
  over: { bytes: number | null; oversized: readonly { path: string; bytes: number }[] },
  limits: PatchLimits,
): string {
  if (over.oversized.length > 0) {
    const files = over.oversized
      .slice(0, 5)
      .map((file) => `${file.path} (${grouped(file.bytes)} bytes)`)
      .join(", ");
    const more = over.oversized.length > 5 ? ` and ${over.oversized.length - 5} more` : "";
    return `the changes hold binary files over the limit of ${grouped(limits.maxBinaryFileBytes)} bytes: ${files}${more}`;
  }
  return `the diff is ${grouped(over.bytes ?? 0)} bytes, over the patch limit of ${grouped(limits.maxBytes)} bytes`;
}
