import { listTrajectories, readTrajectory, type RunFormat } from "@loclab/analysis";
import type { Instance } from "@loclab/schemas";
import { defaultWorkspaceCacheDir, materializeWorkspace } from "@loclab/tools";
import { buildCandidates, type Candidate, type CandidateSample } from "./candidates.js";
import { checkoutCode, type CodeSource, observedCode } from "./code-source.js";
import { type TeacherLocalization, teacherLocalization } from "./teacher-localization.js";

/** One task ready to score: the benchmark row, the teacher's localization, the candidates and their code. */
export interface TaskCandidates {
  instance: Instance;
  teacher: TeacherLocalization;
  candidates: Candidate[];
  code: CodeSource;
}

export interface CandidatesFromTrajectoriesOptions {
  /** A folder of trajectories in one of the analysis package's formats. */
  dir: string;
  format: RunFormat;
  /** The benchmark rows (issue, base commit, verified patch) by instance id. */
  instances: ReadonlyMap<string, Instance>;
  /** Only these tasks (default: every trajectory whose instance is in `instances`). */
  only?: ReadonlySet<string>;
  /** The localizer's samples per task (`samplesFromRun`). */
  samples?: ReadonlyMap<string, readonly CandidateSample[]>;
  /**
   * Mirrors folder (`<owner>__<name>.git`): ctx(z) and the reads that need the file come from a
   * real checkout at base commit (tools' `materializeWorkspace`). Without it, from what the
   * trajectory saw and the patches' pre-image lines (`observedCode`).
   */
  mirrors?: string;
  cacheDir?: string;
  maxLocations?: number;
  onTask?: (done: number, total: number, task: string) => void;
}

/** A task that could not be prepared, and why (the others go on). */
export interface TaskProblem {
  task: string;
  error: string;
}

/**
 * Teacher localizations and candidates for every task of a trajectory folder (docs/definitions.md
 * §5): each trajectory read with the analysis package's importer, cut at its first edit, its
 * reads and final patch turned into the teacher's localization, plus the variants and the
 * samples. A trajectory that cannot be read, or whose checkout cannot be made, is a problem
 * named by task; the rest go on.
 */
export async function candidatesFromTrajectories(
  options: CandidatesFromTrajectoriesOptions,
): Promise<{ tasks: TaskCandidates[]; problems: TaskProblem[] }> {
  const entries = (await listTrajectories(options.dir, options.format)).filter(
    (entry) => options.instances.has(entry.instanceId) && (!options.only || options.only.has(entry.instanceId)),
  );
  const tasks: TaskCandidates[] = [];
  const problems: TaskProblem[] = [];
  let done = 0;
  for (const entry of entries) {
    const instance = options.instances.get(entry.instanceId)!;
    try {
      const trajectory = await readTrajectory(entry.path, options.format);
      let checkout: CodeSource | undefined;
      if (options.mirrors !== undefined) {
        const workspace = await materializeWorkspace({
          instance,
          mirrors: options.mirrors,
          cacheDir: options.cacheDir ?? defaultWorkspaceCacheDir(),
        });
        checkout = checkoutCode(workspace);
      }
      const teacher = await teacherLocalization(trajectory, {
        repo: instance.repo,
        ...(checkout ? { code: checkout } : {}),
      });
      const samples = options.samples?.get(entry.instanceId) ?? [];
      const candidates = buildCandidates({
        task: entry.instanceId,
        teacher: { edits: teacher.edits, reads: teacher.reads, source: entry.path },
        samples,
        ...(options.maxLocations !== undefined ? { maxLocations: options.maxLocations } : {}),
      });
      tasks.push({ instance, teacher, candidates, code: checkout ?? observedCode(teacher) });
    } catch (error) {
      problems.push({ task: entry.instanceId, error: `${entry.path}: ${(error as Error).message}` });
    }
    done += 1;
    options.onTask?.(done, entries.length, entry.instanceId);
  }
  return { tasks, problems };
}
