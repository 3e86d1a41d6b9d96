import { type GoldLocations, goldAtPreImage, parsePatch } from "@loclab/gold";
import { loadPythonImportParser, pythonDefinitions } from "@loclab/python";
import { findMirror, WorkspaceError } from "@loclab/tools";
import { type MirrorRef, readObjects, resolveCommitIn } from "./git-objects.js";

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
  golds: GoldLocations[];
  /** Instances with no gold at all: the patch does not parse, or the mirror or commit is missing. */
  failures: GoldAtBaseCommitFailure[];
}

/**
 * Gold of every instance in the lines of its real files (docs/definitions.md §2): the
 * pre-images of the gold files are read from the mirrors at base commit (one `git cat-file
 * --batch` per repository, no checkout), each patch is placed on them as `git apply` places it
 * (`goldAtPreImage` of @loclab/gold), and Python files are parsed with tree-sitter for the exact
 * symbols. An instance whose mirror or commit is missing, or whose patch does not parse, is a
 * failure naming it; a gold file whose hunks do not apply keeps its `@@` numbers and is listed
 * in its gold's `unplaced`. `onProgress` is called after each instance.
 */
export async function goldAtBaseCommit(options: {
  instances: readonly PatchedCheckoutInstance[];
  mirrors: string;
  onProgress?: (done: number, total: number) => void;
}): Promise<GoldAtBaseCommitResult> {
  const { parser } = await loadPythonImportParser();
  const golds: GoldLocations[] = [];
  const failures: GoldAtBaseCommitFailure[] = [];
  const mirrors = new Map<string, Promise<MirrorRef>>();
  let done = 0;
  for (const instance of options.instances) {
    try {
      let mirror = mirrors.get(instance.repo);
      if (!mirror) {
        mirror = findMirror(options.mirrors, instance.repo);
        mirrors.set(instance.repo, mirror);
      }
      const ref = await mirror;
      const commit = await resolveCommitIn(ref, instance.base_commit);
      if (!commit) throw new WorkspaceError("unknown-commit", `commit ${instance.base_commit} of ${instance.repo} is not in the mirror ${ref.path}`);
      const paths = [...new Set(parsePatch(instance.patch, { instanceId: instance.instance_id }).flatMap((file) => (file.oldPath !== null ? [file.oldPath] : [])))];
      const blobs = await readObjects(ref, paths.map((path) => `${commit}:${path}`));
      const texts = new Map(paths.map((path) => [path, blobs.get(`${commit}:${path}`)?.toString("utf8")]));
      golds.push(
        goldAtPreImage(instance.patch, {
          instanceId: instance.instance_id,
          preImage: (path) => texts.get(path),
          definitions: (path, text) => (path.endsWith(".py") || path.endsWith(".pyi") ? pythonDefinitions(text, parser) : undefined),
        }),
      );
    } catch (error) {
      failures.push({ instanceId: instance.instance_id, message: `${instance.instance_id}: ${(error as Error).message}` });
    }
    done += 1;
    options.onProgress?.(done, options.instances.length);
  }
  return { golds, failures };
}
