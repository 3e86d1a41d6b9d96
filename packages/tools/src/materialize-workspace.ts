import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, readdir, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { type FileEntry, parseLsFilesStage } from "./file-listing.js";
import { runGit } from "./git.js";
import { WorkspaceError } from "./tool-error.js";
import { DEFAULT_TOOL_LIMITS, type ToolLimits } from "./tool-limits.js";
import { writeContentPack } from "./content-pack.js";
import { checkoutFromBlobs, stagedEntriesOf } from "./blob-checkout.js";
import { BLOB_FOLDER } from "./blob-store.js";
import { type WorkspaceManifest, readManifest } from "./workspace-manifest.js";
import { workspaceFromFiles } from "./open-workspace.js";
import type { Workspace } from "./workspace.js";
import { ARTIFACT_KINDS } from "@loclab/schemas";
import { processAlive } from "./process-alive.js";

export { processAlive };

/** The fields of a task instance a workspace needs (SWE-bench names). */
export interface RepositoryInstance {
  /** `owner/name`, e.g. `django/django`. */
  repo: string;
  /** The commit the task's repository is checked out at (hexadecimal, full or abbreviated). */
  base_commit: string;
  instance_id?: string;
}

export interface MaterializeWorkspaceOptions {
  instance: RepositoryInstance;
  /** Folder of git mirrors or clones, one per repository: `<mirrors>/<owner>__<name>` or `<owner>__<name>.git`, bare or not. */
  mirrors: string;
  /** Folder the trees are materialized in (see `workspaceCachePath`). */
  cacheDir: string;
  limits?: Partial<ToolLimits>;
}

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const COMMIT = /^[0-9a-fA-F]{4,64}$/;
const FULL_COMMIT = /^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/;
const inFlight = new Map<string, Promise<string>>();

/** The folder names a repository's mirror may have under the mirrors folder, in the order they are tried. */
export function mirrorCandidates(mirrors: string, repo: string): string[] {
  const slug = repoSlug(repo);
  return [join(mirrors, slug), join(mirrors, `${slug}.git`)];
}

/**
 * Where a repository's tree at a full commit id is materialized:
 * `<cacheDir>/<owner>__<name>/<commit>/tree/`, with `manifest.json` beside `tree/`.
 */
export function workspaceCachePath(cacheDir: string, repo: string, commit: string): string {
  return join(resolve(cacheDir), repoSlug(repo), commit);
}

/**
 * A read-only checkout of `instance.repo` at `instance.base_commit`, made from the local
 * mirror with git (no network) and cached by commit: the first call for a commit checks it
 * out, later calls (from any process) reuse it.
 *
 * How: `git read-tree <commit>` into a temporary index file, then the index's files written
 * into a fresh folder as `git checkout-index -a` would, each regular file a hard link into the
 * cache's blob store (`<cacheDir>/blobs`, blob-store.ts: a file unchanged between commits is
 * stored once). The mirror is only read (no worktree is registered, no ref or index of it
 * changes; bare mirrors work the same), with the user's and the system's git configuration
 * ignored, so no filter or `autocrlf` setting of this machine alters the files. The files
 * are read-only (0444 or 0555: a hard link shares its mode with every tree holding it), its
 * file list (`git ls-files --stage`: regular files and symlinks, no submodules) is written to
 * `manifest.json`, and the folder is renamed into place in one step, so that a crash never
 * leaves a half tree in the cache.
 *
 * Errors (`WorkspaceError`): `invalid-instance` (repo not `owner/name`, commit not
 * hexadecimal), `no-mirror` (neither candidate folder exists; the message names both),
 * `not-a-git-repository`, `unknown-commit` (the mirror lacks it: fetch it first),
 * `partial-mirror` (the commit is there but a file's contents are not; the message names it).
 */
export async function materializeWorkspace(options: MaterializeWorkspaceOptions): Promise<Workspace> {
  const { repo, base_commit: commitInput } = options.instance;
  if (!REPO.test(repo) || repo.split("/").some((part) => part === "." || part === "..")) {
    throw new WorkspaceError("invalid-instance", `repository ${JSON.stringify(repo)} is not of the form owner/name`);
  }
  if (!COMMIT.test(commitInput))
    throw new WorkspaceError(
      "invalid-instance",
      `base commit ${JSON.stringify(commitInput)} is not a hexadecimal commit id`,
    );
  // A full commit id whose tree is in the cache needs no git at all (not even the mirror):
  // the tree is complete once its manifest is there, and a commit id names one tree forever.
  const cachedFolder = FULL_COMMIT.test(commitInput)
    ? workspaceCachePath(options.cacheDir, repo, commitInput.toLowerCase())
    : undefined;
  const cachedManifest = cachedFolder ? await readManifest(cachedFolder) : undefined;
  if (
    cachedFolder &&
    cachedManifest &&
    cachedManifest.repo === repo &&
    cachedManifest.commit === commitInput.toLowerCase()
  )
    return cachedWorkspace(cachedFolder, cachedManifest, options.limits);
  const mirror = await findMirror(options.mirrors, repo);
  const commit = await resolveCommit(mirror, commitInput, repo);
  const folder = workspaceCachePath(options.cacheDir, repo, commit);
  let pending = inFlight.get(folder);
  if (!pending) {
    pending = ensureTree(mirror, repo, commit, folder).finally(() => inFlight.delete(folder));
    inFlight.set(folder, pending);
  }
  await pending;
  const manifest = await readManifest(folder);
  if (!manifest) throw new WorkspaceError("git-failed", `${folder}: the materialized tree has no valid manifest.json`);
  return cachedWorkspace(folder, manifest, options.limits);
}

/** The workspace of a complete cache entry; writes its content pack first if it has none. */
async function cachedWorkspace(
  folder: string,
  manifest: WorkspaceManifest,
  limits: Partial<ToolLimits> | undefined,
): Promise<Workspace> {
  const { repo, commit } = manifest;
  const root = await realpath(join(folder, "tree"));
  // The content pack, once per commit (trees cached before packs existed get theirs now).
  // Best effort: a cache this user cannot write is still read, file by file.
  try {
    writeContentPack({ folder, root, files: manifest.files, maxFileBytes: DEFAULT_TOOL_LIMITS.maxFileBytes });
  } catch {
    // Reads fall back to the tree.
  }
  return workspaceFromFiles({
    root,
    files: manifest.files,
    repo,
    commit,
    cacheFolder: folder,
    ...(limits ? { limits } : {}),
  });
}

/** The mirror of `repo` under `mirrors`: its folder and git directory. */
export async function findMirror(mirrors: string, repo: string): Promise<{ path: string; gitDir: string }> {
  // Absolute, so that a relative folder (`--repos repos`) means the same from git's own cwd.
  const candidates = mirrorCandidates(resolve(mirrors), repo);
  const path = candidates.find((candidate) => existsSync(candidate));
  if (!path) {
    throw new WorkspaceError(
      "no-mirror",
      `no mirror of ${repo}: neither ${candidates.join(" nor ")} exists (clone it there, e.g. git clone --mirror https://github.com/${repo} ${candidates[1]})`,
    );
  }
  if (!(await stat(path)).isDirectory())
    throw new WorkspaceError(
      "not-a-git-repository",
      `${path} (the mirror of ${repo}) is not a git repository: it is not a folder`,
    );
  const dotGit = join(path, ".git");
  const gitDir = existsSync(dotGit) ? dotGit : path;
  const probe = await runGit(["--git-dir", gitDir, "rev-parse", "--absolute-git-dir"], {
    cwd: path,
    safeDirectory: "*",
    allowFailure: true,
  });
  if (probe.exitCode !== 0)
    throw new WorkspaceError("not-a-git-repository", `${path} (the mirror of ${repo}) is not a git repository`);
  return { path, gitDir: probe.stdout.trim() };
}

/** The full id of `commit` when the mirror holds it as a commit, else undefined. */
export async function resolveCommitIn(
  mirror: { path: string; gitDir: string },
  commit: string,
): Promise<string | undefined> {
  const result = await runGit(
    ["--git-dir", mirror.gitDir, "rev-parse", "--verify", "--quiet", "--end-of-options", `${commit}^{commit}`],
    {
      cwd: mirror.path,
      safeDirectory: "*",
      allowFailure: true,
    },
  );
  const full = result.stdout.trim();
  return result.exitCode === 0 && /^[0-9a-f]{40,64}$/.test(full) ? full : undefined;
}

async function resolveCommit(mirror: { path: string; gitDir: string }, commit: string, repo: string): Promise<string> {
  const full = await resolveCommitIn(mirror, commit);
  if (full === undefined) {
    throw new WorkspaceError(
      "unknown-commit",
      `commit ${commit} of ${repo} is not in the mirror ${mirror.path} (fetch it, or check the instance's base_commit)`,
    );
  }
  return full;
}

async function ensureTree(
  mirror: { path: string; gitDir: string },
  repo: string,
  commit: string,
  folder: string,
): Promise<string> {
  if (await readManifest(folder)) return folder;
  if (existsSync(folder)) await removeTree(folder);
  const parent = join(folder, "..");
  await mkdir(parent, { recursive: true });
  await removeAbandonedTemporaries(parent);
  const temporary = join(parent, `.tmp-${commit}-${process.pid}-${randomBytes(4).toString("hex")}`);
  await mkdir(join(temporary, "tree"), { recursive: true });
  try {
    // Each file a hard link into the cache's blob store (one copy of a file for every commit
    // that holds it), the same bytes and modes as `git checkout-index --all`.
    const { stage, entries } = await stagedEntriesOf(mirror, commit, join(temporary, "index"), temporary);
    await checkoutFromBlobs({
      mirror,
      repo,
      commit,
      entries,
      indexFile: join(temporary, "index"),
      tree: join(temporary, "tree"),
      store: join(folder, "..", "..", BLOB_FOLDER),
    });
    const files = parseLsFilesStage(stage);
    await rm(join(temporary, "index"), { force: true });
    const manifest: WorkspaceManifest = {
      schemaVersion: 1,
      kind: ARTIFACT_KINDS.workspace,
      repo,
      commit,
      mirror: mirror.path,
      createdAt: new Date().toISOString(),
      files: files.map((entry: FileEntry) => ({ path: entry.path, kind: entry.kind })),
    };
    await writeFile(join(temporary, "manifest.json"), `${JSON.stringify(manifest)}\n`);
    try {
      await rename(temporary, folder);
    } catch (error) {
      // Another process materialized the same commit first: use theirs.
      if (!(await readManifest(folder))) throw error;
      await removeTree(temporary);
    }
    return folder;
  } catch (error) {
    await removeTree(temporary).catch(() => undefined);
    throw error;
  }
}

/** Removes one materialized tree (if present). Other sessions using it must be closed first. */
export async function removeMaterializedWorkspace(options: {
  cacheDir: string;
  repo: string;
  commit: string;
}): Promise<void> {
  await removeTree(workspaceCachePath(options.cacheDir, options.repo, options.commit));
}

/**
 * Removes `.tmp-<commit>-<pid>-<random>` folders left by materializations that were killed
 * (their process is gone), so that a crash does not leave half-written trees behind forever.
 * Those of running processes (another run materializing now) are left alone.
 */
async function removeAbandonedTemporaries(parent: string): Promise<void> {
  for (const entry of await readdir(parent, { withFileTypes: true }).catch(() => [])) {
    const match = /^\.tmp-[0-9a-f]+-(\d+)-[0-9a-f]+$/.exec(entry.name);
    if (entry.isDirectory() && match && !processAlive(Number(match[1]))) await removeTree(join(parent, entry.name));
  }
}

/** `rm -rf` for a tree made read-only: folders are made writable again first. */
export async function removeTree(folder: string): Promise<void> {
  if (!existsSync(folder)) return;
  const unlock = async (path: string) => {
    await chmod(path, 0o755);
    for (const entry of await readdir(path, { withFileTypes: true }))
      if (entry.isDirectory()) await unlock(join(path, entry.name));
  };
  await unlock(folder).catch(() => undefined);
  await rm(folder, { recursive: true, force: true });
}

function repoSlug(repo: string): string {
  return repo.replace("/", "__");
}
