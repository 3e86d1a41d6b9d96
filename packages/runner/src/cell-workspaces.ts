import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, realpath, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  mapIssueText,
  maskIssuePaths,
  parseShuffleMapping,
  SHUFFLE_MAPPING_SCHEMA_VERSION,
  type ShuffleMapping,
  topLevelPackageNames,
  unmapPath,
  unmapPredictions,
} from "@loclab/controls";
import type { Prediction } from "@loclab/schemas";
import {
  DEFAULT_TOOL_LIMITS,
  materializeWorkspace,
  removeTree,
  BLOB_FOLDER,
  SHUFFLE_FACTS_FOLDER,
  shuffleRepositoryOffThread,
  writeContentPack,
  walkCheckout,
  type Workspace,
  workspaceCachePath,
  workspaceFromFiles,
} from "@loclab/tools";
import type { PlannedAttempt } from "./run-plan.js";

/** An attempt made ready for the localizer under its control. */
export interface PreparedAttempt {
  workspace: Workspace;
  /** The issue text the model gets (masked, or mapped through the shuffle). */
  problemStatement: string;
  /** The prediction in the original repository's names (shuffled: mapped back; others: as given). */
  toOriginal(prediction: Prediction): { prediction: Prediction; unmappedPaths: number };
  /** The task's own repository's top-level packages at its base commit (what the leak audit looks for). */
  packages: string[];
  /** A workspace path's name in the original repository (shuffled: unmapped; absent: the path as it is). */
  originalPathOf?: (path: string) => string | undefined;
}

/**
 * Where the shuffled copy of a repository × commit for a shuffle seed lives in the workspace
 * cache: `tree/` and, beside it (out of the model's reach), `mapping.json`.
 */
export function shuffledCopyFolder(cacheDir: string, repo: string, commit: string, seed: number): string {
  return workspaceCachePath(join(cacheDir, "shuffled", `seed-${seed}`), repo, commit);
}

/** Whether a shuffled copy's mapping is of another schema version than this loclab draws. */
async function staleMapping(folder: string): Promise<boolean> {
  const file = join(folder, "mapping.json");
  if (!existsSync(file)) return false;
  const version = (JSON.parse(await readFile(file, "utf8")) as { schemaVersion?: unknown }).schemaVersion;
  return version !== SHUFFLE_MAPPING_SCHEMA_VERSION;
}

/** The mapping a shuffled copy was made with (`mapping.json` beside its tree); undefined while the copy is not there. */
export async function readShuffledCopyMapping(folder: string): Promise<ShuffleMapping | undefined> {
  const file = join(folder, "mapping.json");
  if (!existsSync(file)) return undefined;
  return parseShuffleMapping(JSON.parse(await readFile(file, "utf8")));
}

/**
 * The workspaces of a run's cells (docs/definitions.md §4), cached so that every cell of a
 * repository × commit shares one materialized tree, and every shuffled cell one shuffled copy:
 *
 * - `plain`: the instance's repository at its base commit, the issue as written;
 * - `masked`: the same tree, the issue masked at the control's level against the tree's full
 *   file list (as `loclab mask --repos` does);
 * - `shuffled`: a shuffled copy of the tree (`<cacheDir>/shuffled/seed-<s>/<owner>__<name>/<commit>/tree`,
 *   its mapping beside it, outside the tree: the model's tools cannot reach it), the issue mapped
 *   through the same renaming (under the control's text policy: by default the project's names
 *   too), predictions mapped back (`unmapPredictions`, unknown paths marked);
 * - `mismatch`: the snapshot of the paired instance's repository, the issue as written.
 *
 * Workspaces are kept for the run (`tree`), so their file caches serve every cell.
 * A shuffled copy is built in a temporary folder and renamed into place, so a crash never
 * leaves half a copy in the cache; concurrent attempts wait for the one build.
 */
export class CellWorkspaces {
  private readonly building = new Map<string, Promise<{ workspace: Workspace; mapping: ShuffleMapping }>>();
  private readonly trees = new Map<string, Promise<Workspace>>();
  private readonly packageNames = new Map<string, Promise<string[]>>();

  constructor(private readonly options: { mirrors: string; cacheDir: string }) {}

  async prepare(attempt: PlannedAttempt): Promise<PreparedAttempt> {
    const { instance, cell } = attempt;
    const asGiven = (prediction: Prediction) => ({ prediction, unmappedPaths: 0 });
    const { control } = cell;
    const own = () => this.packages(instance.repo, instance.base_commit);
    switch (control.kind) {
      case "plain":
        return {
          workspace: await this.tree(instance.repo, instance.base_commit),
          problemStatement: instance.problem_statement,
          toOriginal: asGiven,
          packages: await own(),
        };
      case "masked": {
        // The base commit's full file list: only mentions of files that exist there are masked
        // (docs/definitions.md §4), not names the patches merely suggest.
        const workspace = await this.tree(instance.repo, instance.base_commit);
        return {
          workspace,
          problemStatement: maskIssuePaths(instance.problem_statement, {
            knownFiles: { files: await workspace.paths() },
            level: control.level,
          }).text,
          toOriginal: asGiven,
          packages: await own(),
        };
      }
      case "mismatch": {
        if (!attempt.mismatch) throw new Error(`${instance.instance_id}: no mismatch pairing for seed ${control.seed}`);
        return {
          workspace: await this.tree(attempt.mismatch.snapshotRepo, attempt.mismatch.snapshotCommit),
          problemStatement: instance.problem_statement,
          toOriginal: asGiven,
          packages: await own(),
        };
      }
      case "shuffled": {
        const { workspace, mapping } = await this.shuffled(instance.repo, instance.base_commit, control.seed);
        return {
          workspace,
          packages: await own(),
          // The default `names` policy also renames the project's owner, name and packages as words.
          problemStatement: mapIssueText(mapping, instance.problem_statement, {
            policy: control.textPolicy,
            repo: instance.repo,
          }).text,
          toOriginal: (prediction) => {
            const mapped = unmapPredictions(mapping, [prediction]);
            return { prediction: mapped.predictions[0] as Prediction, unmappedPaths: mapped.unmapped.length };
          },
          originalPathOf: (path) => unmapPath(mapping, path),
        };
      }
    }
  }

  /**
   * One `Workspace` per tree for the whole run: the trees are read-only, so every attempt on a
   * repository × commit (every cell, every seed) shares its file cache and import graph
   * instead of reading the tree again.
   */
  private tree(repo: string, commit: string): Promise<Workspace> {
    const id = `${repo}@${commit}`;
    let pending = this.trees.get(id);
    if (!pending) {
      pending = materializeWorkspace({
        instance: { repo, base_commit: commit },
        mirrors: this.options.mirrors,
        cacheDir: this.options.cacheDir,
      });
      pending.catch(() => this.trees.delete(id));
      this.trees.set(id, pending);
    }
    return pending;
  }

  /** The top-level package names of a repository × commit, listed once for the run. */
  private packages(repo: string, commit: string): Promise<string[]> {
    const id = `${repo}@${commit}`;
    let pending = this.packageNames.get(id);
    if (!pending) {
      pending = this.tree(repo, commit).then(async (workspace) => topLevelPackageNames(await workspace.paths()));
      pending.catch(() => this.packageNames.delete(id));
      this.packageNames.set(id, pending);
    }
    return pending;
  }

  private shuffled(
    repo: string,
    commit: string,
    seed: number,
  ): Promise<{ workspace: Workspace; mapping: ShuffleMapping }> {
    const id = `${repo}@${commit}#${seed}`;
    let pending = this.building.get(id);
    if (!pending) {
      pending = this.buildShuffled(repo, commit, seed);
      pending.catch(() => this.building.delete(id));
      this.building.set(id, pending);
    }
    return pending;
  }

  private async buildShuffled(
    repo: string,
    commitInput: string,
    seed: number,
  ): Promise<{ workspace: Workspace; mapping: ShuffleMapping }> {
    const original = await this.tree(repo, commitInput);
    const commit = original.commit ?? commitInput;
    const folder = shuffledCopyFolder(this.options.cacheDir, repo, commit, seed);
    // A copy made by an earlier loclab whose names were drawn another way is made again.
    if (await staleMapping(folder)) await removeTree(folder);
    if (!existsSync(join(folder, "mapping.json"))) {
      const temporary = `${folder}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
      await mkdir(temporary, { recursive: true });
      try {
        // On a worker thread: the model requests of the attempts running meanwhile are not held up.
        await shuffleRepositoryOffThread({
          repo: await realpath(original.root),
          out: join(temporary, "tree"),
          mapping: join(temporary, "mapping.json"),
          seed,
          // Facts of every Python file parsed for any commit: a new commit parses only what changed.
          factsDir: join(this.options.cacheDir, SHUFFLE_FACTS_FOLDER),
          // Its files hard links into the cache's blob store, as the trees' are: stored once across commits.
          blobStore: join(this.options.cacheDir, BLOB_FOLDER),
        });
        await rename(temporary, folder).catch(async (error: NodeJS.ErrnoException) => {
          // Another process finished the same copy first: use theirs.
          if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
        });
      } finally {
        await rm(temporary, { recursive: true, force: true });
      }
    }
    const mapping = await readShuffledCopyMapping(folder);
    if (!mapping) throw new Error(`${folder}: the shuffled copy has no mapping.json`);
    const root = await realpath(join(folder, "tree"));
    const walk = await walkCheckout(root, { skipDirectories: new Set() });
    const files = [
      ...walk.files.map((path) => ({ path, kind: "file" as const })),
      ...walk.symlinks.map((link) => ({ path: link.path, kind: "symlink" as const })),
    ];
    // The copy is read-only and keyed by commit and seed: its content pack and import graph are kept beside it.
    try {
      writeContentPack({ folder, root, files, maxFileBytes: DEFAULT_TOOL_LIMITS.maxFileBytes });
    } catch {
      // Best effort: reads fall back to the tree.
    }
    return { workspace: workspaceFromFiles({ root, files, repo, commit, cacheFolder: folder }), mapping };
  }
}
