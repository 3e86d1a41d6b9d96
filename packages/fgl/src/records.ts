import { fglTaskWeights, type TaskWeightsOptions, spreadDistribution, withinTaskSpread } from "@loclab/fgl-math";
import type { Candidate } from "./candidates.js";
import { isScored, type ScoreRecord } from "./score-record.js";

/** One weighted training record (docs/definitions.md §5–6): what a trainer consumes. */
export interface TrainingRecord {
  schemaVersion: 1;
  task: string;
  candidate: string;
  weight: number;
  /** The localizer's target: the candidate's locations as the localizer writes its answer. */
  target: string;
  provenance: {
    kind: Candidate["kind"];
    teacher: boolean;
    source: string;
    seed?: number | null;
    score: number;
    softmaxWeight: number;
    tau: number | null;
    ess: number;
    model: string;
    endpoint: string;
    settingsDigest: string;
  };
}

/** One row of the per-task score table. */
export interface TaskScoreRow {
  task: string;
  candidates: number;
  scored: number;
  failed: number;
  teacherScore: number | null;
  top: string | null;
  topScore: number | null;
  /** The top candidate (highest s_k) is not the teacher's localization. */
  topIsNotTeacher: boolean | null;
  /** Sample standard deviation of mean log p over the task's scored candidates (nats per token). */
  spread: number | null;
  tau: number | null;
  ess: number | null;
}

export interface RecordsResult {
  records: TrainingRecord[];
  table: TaskScoreRow[];
  /** Distribution of the per-task spreads (tasks with two or more scored candidates). */
  spread: ReturnType<typeof spreadDistribution>;
  /** Share of tasks with a teacher score whose top candidate is not the teacher's. */
  topNotTeacherShare: number | null;
}

/** The localizer target of a candidate: one `path:start-end (role) symbol` line per location. */
export function localizerTarget(candidate: Pick<Candidate, "locations">): string {
  return candidate.locations
    .map((l) => `${l.path}:${l.startLine}-${l.endLine} (${l.role})${l.symbol ? ` ${l.symbol}` : ""}`)
    .join("\n");
}

/**
 * Weighted training records from candidates and their scores: per task, the scored candidates'
 * weights (`fglTaskWeights`: ESS-matched softmax, top M, teacher anchor), one record per
 * candidate with a weight above 0, and the per-task table with the score spread. The latest
 * score line of a candidate wins (a re-scored candidate replaces its earlier line).
 */
export function trainingRecords(
  candidates: readonly Candidate[],
  scores: readonly ScoreRecord[],
  options: TaskWeightsOptions = {},
): RecordsResult {
  const latest = new Map<string, ScoreRecord>();
  for (const score of scores) latest.set(`${score.task}\u0000${score.candidate}`, score);
  const byTask = new Map<string, Candidate[]>();
  for (const candidate of candidates) byTask.set(candidate.task, [...(byTask.get(candidate.task) ?? []), candidate]);
  const records: TrainingRecord[] = [];
  const table: TaskScoreRow[] = [];
  for (const [task, list] of byTask) {
    const scored = list.flatMap((candidate) => {
      const score = latest.get(`${task}\u0000${candidate.id}`);
      return score && isScored(score) ? [{ candidate, score }] : [];
    });
    const failed = list.length - scored.length;
    const spread = withinTaskSpread(scored.map((s) => s.score.meanLogprob)) ?? null;
    const teacher = scored.find((s) => s.candidate.teacher);
    if (scored.length === 0) {
      table.push({
        task,
        candidates: list.length,
        scored: 0,
        failed,
        teacherScore: null,
        top: null,
        topScore: null,
        topIsNotTeacher: null,
        spread: null,
        tau: null,
        ess: null,
      });
      continue;
    }
    const weights = fglTaskWeights(
      scored.map((s) => ({ candidate: s.candidate.id, score: s.score.score, teacher: s.candidate.teacher })),
      options,
    );
    const top = scored.reduce((best, s) => (s.score.score > best.score.score ? s : best));
    table.push({
      task,
      candidates: list.length,
      scored: scored.length,
      failed,
      teacherScore: teacher?.score.score ?? null,
      top: top.candidate.id,
      topScore: top.score.score,
      topIsNotTeacher: teacher ? !top.candidate.teacher : null,
      spread,
      tau: Number.isFinite(weights.tau) ? weights.tau : null,
      ess: weights.ess,
    });
    weights.rows.forEach((row, i) => {
      if (row.weight <= 0) return;
      const { candidate, score } = scored[i]!;
      records.push({
        schemaVersion: 1,
        task,
        candidate: candidate.id,
        weight: row.weight,
        target: localizerTarget(candidate),
        provenance: {
          kind: candidate.kind,
          teacher: candidate.teacher,
          source: candidate.provenance.source,
          ...(candidate.provenance.seed !== undefined ? { seed: candidate.provenance.seed } : {}),
          score: score.score,
          softmaxWeight: row.softmaxWeight,
          tau: Number.isFinite(weights.tau) ? weights.tau : null,
          ess: weights.ess,
          model: score.model,
          endpoint: score.endpoint,
          settingsDigest: score.settingsDigest,
        },
      });
    });
  }
  const spreads = table.flatMap((row) => (row.spread === null ? [] : [row.spread]));
  const withTeacher = table.filter((row) => row.topIsNotTeacher !== null);
  return {
    records,
    table,
    spread: spreadDistribution(spreads),
    topNotTeacherShare:
      withTeacher.length === 0 ? null : withTeacher.filter((row) => row.topIsNotTeacher).length / withTeacher.length,
  };
}
