import { existsSync } from "node:fs";
import { findMirror, resolveCommitIn, WorkspaceError } from "@loclab/tools";
import { listTree, missingObjects, type MirrorRef } from "./git-objects.js";

/** The fields of an instance a mirror check reads (SWE-bench names). */
export interface CheckoutInstance {
  instance_id: string;
  repo: string;
  base_commit: string;
}

/**
 * What a mirror holds of one instance's base commit:
 * - `ok`: the commit and every blob of its tree are readable;
 * - `no-mirror`: the mirrors folder has no mirror of the repository;
 * - `missing-commit`: the mirror lacks the commit (fetch, or check `base_commit`);
 * - `missing-blobs`: the commit is there but some files of its tree are not (a partial mirror:
 *   a shallow or filtered clone, a snapshot without its large files); `missing` names them.
 */
export interface InstanceCheck {
  instanceId: string;
  repo: string;
  commit: string;
  status: "ok" | "no-mirror" | "missing-commit" | "missing-blobs";
  /** Files of the tree (links and submodules excluded). */
  files: number;
  /** Paths of the tree whose blob is missing (all of them: a report, not a sample). */
  missing: string[];
  detail?: string;
}

/** One repository's mirror summarised over its instances. */
export interface RepositoryCheck {
  repo: string;
  mirror: string | undefined;
  instances: number;
  commits: number;
  ok: number;
  missingCommit: number;
  missingBlobs: number;
}

export interface MirrorCheckReport {
  instances: InstanceCheck[];
  repositories: RepositoryCheck[];
}

/**
 * Checks, before any run, that the mirrors under `mirrors` hold every instance's base commit
 * and every blob of its tree, so that a partial mirror is reported per instance instead of
 * failing in the middle of a run. Each distinct commit is listed once (`git ls-tree -r`), and
 * each repository's blobs are checked in one `git cat-file --batch-check`. `onProgress` is
 * called after each repository.
 */
export async function checkMirrors(options: {
  instances: readonly CheckoutInstance[];
  mirrors: string;
  onProgress?: (done: number, total: number, repo: string) => void;
}): Promise<MirrorCheckReport> {
  const byRepo = new Map<string, CheckoutInstance[]>();
  for (const instance of options.instances) byRepo.set(instance.repo, [...(byRepo.get(instance.repo) ?? []), instance]);
  const instances: InstanceCheck[] = [];
  const repositories: RepositoryCheck[] = [];
  let done = 0;
  for (const [repo, group] of byRepo) {
    let mirror: MirrorRef | undefined;
    let reason = "";
    if (existsSync(options.mirrors)) {
      try {
        mirror = await findMirror(options.mirrors, repo);
      } catch (error) {
        if (!(error instanceof WorkspaceError)) throw error;
        reason = error.message;
      }
    } else reason = `the mirrors folder ${options.mirrors} does not exist`;
    const checks: InstanceCheck[] = [];
    if (!mirror) {
      for (const instance of group)
        checks.push({
          instanceId: instance.instance_id,
          repo,
          commit: instance.base_commit,
          status: "no-mirror",
          files: 0,
          missing: [],
          detail: reason,
        });
    } else {
      const trees = new Map<string, { path: string; oid: string }[] | undefined>();
      for (const commit of new Set(group.map((instance) => instance.base_commit))) {
        const full = await resolveCommitIn(mirror, commit);
        trees.set(commit, full ? (await listTree(mirror, full)).filter((entry) => entry.type === "blob") : undefined);
      }
      const oids = new Set<string>();
      for (const tree of trees.values()) for (const entry of tree ?? []) oids.add(entry.oid);
      const missing = await missingObjects(mirror, [...oids]);
      for (const instance of group) {
        const tree = trees.get(instance.base_commit);
        if (!tree) {
          checks.push({
            instanceId: instance.instance_id,
            repo,
            commit: instance.base_commit,
            status: "missing-commit",
            files: 0,
            missing: [],
            detail: `commit ${instance.base_commit} is not in ${mirror.path}`,
          });
          continue;
        }
        const lacking = tree.filter((entry) => missing.has(entry.oid)).map((entry) => entry.path);
        checks.push({
          instanceId: instance.instance_id,
          repo,
          commit: instance.base_commit,
          status: lacking.length > 0 ? "missing-blobs" : "ok",
          files: tree.length,
          missing: lacking,
        });
      }
    }
    instances.push(...checks);
    repositories.push({
      repo,
      mirror: mirror?.path,
      instances: group.length,
      commits: new Set(group.map((instance) => instance.base_commit)).size,
      ok: checks.filter((check) => check.status === "ok").length,
      missingCommit: checks.filter((check) => check.status === "missing-commit").length,
      missingBlobs: checks.filter((check) => check.status === "missing-blobs").length,
    });
    done += 1;
    options.onProgress?.(done, byRepo.size, repo);
  }
  return { instances, repositories };
}
