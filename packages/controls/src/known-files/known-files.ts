import { parsePatch } from "@loclab/gold";
import type { Instance } from "@loclab/schemas";
import { CONTAINER_DIRS, isGenericDir } from "./generic-dirs.js";
import type { KnownFiles } from "../mask/mask-types.js";

/** The fields of an instance that `knownFilesFromInstance` reads. */
export type InstanceWithPatches = Pick<Instance, "instance_id" | "patch" | "test_patch">;

/**
 * What is known of an instance's repository without a checkout (docs/definitions.md §4): every path
 * its gold patch and test patch touch (pre- and post-image, so created files count: they name
 * repository files too), plus the generic patterns of `packageRootsOf`.
 *
 * A patch that is not a unified diff throws `PatchParseError` (from `@loclab/gold`).
 *
 * @example knownFilesFromInstance(row) // { files: ["django/db/models/query.py", "tests/queries/tests.py"], roots: ["django"] }
 */
export function knownFilesFromInstance(instance: InstanceWithPatches): KnownFiles {
  const files: string[] = [];
  const seen = new Set<string>();
  for (const patch of [instance.patch, instance.test_patch ?? ""]) {
    for (const file of parsePatch(patch, { instanceId: instance.instance_id })) {
      for (const path of [file.oldPath, file.newPath]) {
        if (path === null) continue;
        const normalized = normalizeRepoPath(path);
        if (normalized === "" || seen.has(normalized)) continue;
        seen.add(normalized);
        files.push(normalized);
      }
    }
  }
  return { files, roots: packageRootsOf(files) };
}

/**
 * The package roots of a list of repository files: for each file under a distinctive
 * top-level folder, that folder (`django/db/models/query.py` → `django`), looking through
 * container folders (`lib/matplotlib/axes/_axes.py` → `lib/matplotlib`,
 * `sdk/python/feast/x.py` → `sdk/python/feast`). Generic folders (`tests`, `docs`, `core`, …,
 * and hidden ones) and top-level files give no root.
 *
 * @example packageRootsOf(["src/_pytest/python.py", "testing/test_x.py"]) // ["src/_pytest"]
 */
export function packageRootsOf(files: readonly string[]): string[] {
  const roots = new Set<string>();
  for (const file of files) {
    const segments = normalizeRepoPath(file).split("/");
    let index = 0;
    while (index < segments.length - 1 && CONTAINER_DIRS.has((segments[index] as string).toLowerCase())) index += 1;
    if (index >= segments.length - 1) continue; // a file, not a folder, at this depth
    const name = segments[index] as string;
    if (isGenericDir(name) || !/^[\p{L}_][\p{L}\p{N}_.-]*$/u.test(name)) continue;
    roots.add(segments.slice(0, index + 1).join("/"));
  }
  return [...roots].sort();
}

/** A repository path with `/` separators, no `./` or leading `/`, no empty segments. */
export function normalizeRepoPath(path: string): string {
  return path
    .split(/[\\/]+/)
    .filter((segment) => segment !== "" && segment !== ".")
    .join("/");
}
