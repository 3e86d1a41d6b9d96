import {
  type GoldLocations,
  goldAtPreImage,
  goldFromPatch,
  hasPreImage,
  PatchParseError,
  parsePatch,
} from "@loclab/gold";
import { loadPythonImportParser, pythonDefinitions } from "@loclab/python";
import { findMirror, resolveCommitIn, WorkspaceError } from "@loclab/tools";
import { readObjects } from "./git-objects.js";

/** The fields of an instance gold at base commit reads (SWE-bench names). */
export interface PatchedCheckoutInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
}

export interface GoldAtBaseCommitFailure {
  instanceId: string;
  message: string;
}

export interface GoldAtBaseCommitResult {
  /**
   * In the order of the instances: placed on the pre-image (`lines: "pre-image"`), or, for an
   * instance in `unreadable`, its patch-only gold (`lines: "patch-header"`).
   */
  golds: GoldLocations[];
  /** Instances whose patch does not parse: no gold at all. */
  failures: GoldAtBaseCommitFailure[];
  /** Instances that could not be read at base commit (no mirror, a missing commit): patch-only gold. */
  unreadable: GoldAtBaseCommitFailure[];
}

/**
 * Gold of every instance in the lines of its real files (docs/definitions.md §2): the
 * pre-images of the gold files are read from the mirrors at base commit (one `git cat-file
 * --batch` per repository, no checkout), each patch is placed on them as `git apply` places it
 * (`goldAtPreImage` of @loclab/gold), and Python files are parsed with tree-sitter for the exact
 * symbols. An instance whose mirror or commit is missing keeps its patch-only gold and is listed
 * in `unreadable`, so a partial set of mirrors loses nothing; one whose patch does not parse is
 * a failure naming it; a gold file whose hunks do not apply keeps its `@@` numbers and is listed
 * in its gold's `unplaced`. `onProgress` is called after each repository.
 */
export async function goldAtBaseCommit(options: {
  instances: readonly PatchedCheckoutInstance[];
  mirrors: string;
  onProgress?: (done: number, total: number) => void;
}): Promise<GoldAtBaseCommitResult> {
  const { parser } = await loadPythonImportParser();
  const byId = new Map<string, GoldLocations>();
  const failures: GoldAtBaseCommitFailure[] = [];
  const unreadable: GoldAtBaseCommitFailure[] = [];
  const fail = (list: GoldAtBaseCommitFailure[], instance: PatchedCheckoutInstance, error: unknown) =>
    list.push({ instanceId: instance.instance_id, message: `${instance.instance_id}: ${(error as Error).message}` });
  const byRepo = new Map<string, PatchedCheckoutInstance[]>();
  for (const instance of options.instances) byRepo.set(instance.repo, [...(byRepo.get(instance.repo) ?? []), instance]);
  let done = 0;
  for (const [repo, group] of byRepo) {
    // What each instance needs: its commit and the pre-image paths of its patch.
    const wanted: { instance: PatchedCheckoutInstance; commit: string; paths: string[] }[] = [];
    let mirror: Awaited<ReturnType<typeof findMirror>> | undefined;
    try {
      mirror = await findMirror(options.mirrors, repo);
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error;
      for (const instance of group) fail(unreadable, instance, error);
    }
    // One `git rev-parse` per distinct commit: the instances of a repository often share one.
    const resolved = new Map<string, Promise<string | undefined>>();
    for (const instance of mirror ? group : []) {
      let paths: string[];
      try {
        paths = [
          ...new Set(
            parsePatch(instance.patch, { instanceId: instance.instance_id }).flatMap((file) =>
              hasPreImage(file) && file.oldPath !== null ? [file.oldPath] : [],
            ),
          ),
        ];
      } catch (error) {
        if (!(error instanceof PatchParseError)) throw error;
        fail(failures, instance, error);
        continue;
      }
      let resolving = resolved.get(instance.base_commit);
      if (!resolving) {
        resolving = resolveCommitIn(mirror as NonNullable<typeof mirror>, instance.base_commit);
        resolved.set(instance.base_commit, resolving);
      }
      const commit = await resolving;
      if (commit) wanted.push({ instance, commit, paths });
      else
        fail(
          unreadable,
          instance,
          new WorkspaceError(
            "unknown-commit",
            `commit ${instance.base_commit} of ${repo} is not in the mirror ${mirror?.path}`,
          ),
        );
    }
    const blobs = mirror
      ? await readObjects(
          mirror,
          wanted.flatMap(({ commit, paths }) => paths.map((path) => `${commit}:${path}`)),
        )
      : new Map<string, Buffer | undefined>();
    for (const { instance, commit } of wanted) {
      byId.set(
        instance.instance_id,
        goldAtPreImage(instance.patch, {
          instanceId: instance.instance_id,
          preImage: (path) => blobs.get(`${commit}:${path}`)?.toString("utf8"),
          definitions: (path, text) =>
            path.endsWith(".py") || path.endsWith(".pyi") ? pythonDefinitions(text, parser) : undefined,
        }),
      );
    }
    done += 1;
    options.onProgress?.(done, byRepo.size);
  }
  const unreadableIds = new Set(unreadable.map((entry) => entry.instanceId));
  for (const instance of options.instances) {
    if (!unreadableIds.has(instance.instance_id)) continue;
    try {
      byId.set(instance.instance_id, {
        ...goldFromPatch(instance.patch, { instanceId: instance.instance_id }),
        lines: "patch-header",
      });
    } catch (error) {
      if (!(error instanceof PatchParseError)) throw error;
      unreadableIds.delete(instance.instance_id);
      fail(failures, instance, error);
    }
  }
  const golds = options.instances.flatMap((instance) => {
    const gold = byId.get(instance.instance_id);
    return gold ? [gold] : [];
  });
  return { golds, failures, unreadable: unreadable.filter((entry) => unreadableIds.has(entry.instanceId)) };
}
