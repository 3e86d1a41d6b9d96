import { isAbsolute, relative, resolve, sep } from "node:path";
import { z } from "zod";

/**
 * The characters an instance id may hold: letters, digits, `.`, `_` and `-`, starting with a
 * letter or digit, at most 200 characters. Every SWE-bench, SWE-bench Verified and Loc-Bench id
 * fits (`django__django-11099`, `UXARRAY__uxarray-1117`); the set exists because ids become
 * file names (`<id>.traj.jsonl`): a `/`, `..`, a leading `.` or a NUL would let a benchmark row
 * write outside the run folder or hide a file.
 */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** An instance id, checked against `INSTANCE_ID_PATTERN` at every boundary that reads one. */
export const InstanceIdSchema = z
  .string()
  .min(1, "instance_id must not be empty")
  .regex(
    INSTANCE_ID_PATTERN,
    "instance_id must be at most 200 letters, digits, '.', '_' or '-', starting with a letter or digit (ids become file names)",
  );

/** Thrown when a path built for output would land outside its root. */
export class OutputPathError extends Error {
  override readonly name = "OutputPathError";
}

/**
 * The one way output paths are built: `root` joined with `parts`, refused when the result is
 * not strictly inside `root` (a `..`, an absolute part, a NUL byte). Pure path arithmetic; the
 * file system is not consulted (roots are created by the caller).
 *
 * @example pathInside("runs/a", "trajectories", "django__django-11099.traj.jsonl")
 */
export function pathInside(root: string, ...parts: string[]): string {
  if (parts.some((part) => part.includes("\0")))
    throw new OutputPathError(`refusing an output path with a NUL byte under ${root}`);
  const base = resolve(root);
  const path = resolve(base, ...parts);
  const inside = relative(base, path);
  if (inside === "" || inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new OutputPathError(`refusing to write ${JSON.stringify(parts.join("/"))}: it resolves outside ${base}`);
  }
  return path;
}

/** `<root>/<instance id><suffix>`, the id checked first (`InstanceIdSchema`), the path through `pathInside`. */
export function instanceFile(root: string, instanceId: string, suffix: string): string {
  const checked = InstanceIdSchema.safeParse(instanceId);
  if (!checked.success)
    throw new OutputPathError(
      `refusing to write a file for instance ${JSON.stringify(instanceId)}: ${checked.error.issues[0]?.message ?? "not a safe id"}`,
    );
  return pathInside(root, `${instanceId}${suffix}`);
}
