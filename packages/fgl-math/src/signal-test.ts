import { exactMcNemar } from "@loclab/statistics";

/**
 * What a fixer did on one task from one input (docs/definitions.md §6, the offline signal
 * test): started from the teacher's localization (`T`) or from the top-weighted candidate (`S`).
 */
export interface FixerOutcome {
  task: string;
  input: "T" | "S";
  /** The fixer's first edit touched a location the gold patch changes. */
  firstEditAtPatchedLocation: boolean;
  /** At least one hunk of the gold patch was reproduced. */
  anyHunkReproduced: boolean;
  /** The fixer ran out of context. */
  contextOverflow: boolean;
  /** The size of the localization given to the fixer (tokens of ctx(z), tok(z)). */
  localizationSize: number;
}

/** One binary outcome compared between T and S over the paired tasks. */
export interface BinaryComparison {
  outcome: "firstEditAtPatchedLocation" | "anyHunkReproduced" | "contextOverflow";
  /** Tasks where it happened, from T and from S. */
  teacher: number;
  student: number;
  /** Shares of the paired tasks. */
  teacherRate: number;
  studentRate: number;
  /** Discordant pairs: only with T (b), only with S (c). */
  b: number;
  c: number;
  /** Exact McNemar two-sided p (docs/definitions.md §7). */
  p: number;
  /** (S − T) / T of the counts; NaN when T is 0. FGL: 44 % fewer context overflows = −0.44. */
  relativeChange: number;
}

export interface SignalTestTable {
  /** Tasks with both a T and an S outcome. */
  tasks: number;
  /** Tasks with only one of the two (left out), by id. */
  unpaired: string[];
  binary: BinaryComparison[];
  size: {
    teacherMean: number;
    studentMean: number;
    /** (mean S − mean T) / mean T. FGL: S is 27.5 % smaller = −0.275. */
    relativeChange: number;
    /** Median over tasks of S / T (tasks with T = 0 left out). */
    medianRatio: number;
  };
}

/**
 * FGL's offline signal test table (its Table 3; docs/definitions.md §6): for every task with a
 * fixer outcome from both inputs, each binary outcome counted from T and from S with the exact
 * McNemar test on the discordant pairs, and the localization sizes compared. A task given twice
 * for one input is an error naming it.
 *
 * @example signalTestTable(outcomes).binary[0] // { outcome: "firstEditAtPatchedLocation", teacherRate: 0.424, studentRate: 0.431, p: 0.74, … }
 */
export function signalTestTable(outcomes: readonly FixerOutcome[]): SignalTestTable {
  const byTask = new Map<string, { T?: FixerOutcome; S?: FixerOutcome }>();
  for (const outcome of outcomes) {
    const pair = byTask.get(outcome.task) ?? {};
    if (pair[outcome.input])
      throw new RangeError(`signalTestTable: task ${outcome.task} has two outcomes for input ${outcome.input}`);
    if (!(Number.isFinite(outcome.localizationSize) && outcome.localizationSize >= 0))
      throw new RangeError(
        `signalTestTable: task ${outcome.task} (${outcome.input}): localizationSize must be a number ≥ 0, got ${outcome.localizationSize}`,
      );
    pair[outcome.input] = outcome;
    byTask.set(outcome.task, pair);
  }
  const pairs: { T: FixerOutcome; S: FixerOutcome }[] = [];
  const unpaired: string[] = [];
  for (const [task, pair] of byTask) {
    if (pair.T && pair.S) pairs.push({ T: pair.T, S: pair.S });
    else unpaired.push(task);
  }
  const n = pairs.length;
  const binary = (["firstEditAtPatchedLocation", "anyHunkReproduced", "contextOverflow"] as const).map(
    (outcome): BinaryComparison => {
      const teacher = pairs.filter((pair) => pair.T[outcome]).length;
      const student = pairs.filter((pair) => pair.S[outcome]).length;
      const b = pairs.filter((pair) => pair.T[outcome] && !pair.S[outcome]).length;
      const c = pairs.filter((pair) => !pair.T[outcome] && pair.S[outcome]).length;
      return {
        outcome,
        teacher,
        student,
        teacherRate: n > 0 ? teacher / n : Number.NaN,
        studentRate: n > 0 ? student / n : Number.NaN,
        b,
        c,
        p: exactMcNemar({ b, c }).p,
        relativeChange: teacher > 0 ? (student - teacher) / teacher : Number.NaN,
      };
    },
  );
  const mean = (values: number[]) =>
    values.length > 0 ? values.reduce((sum, value) => sum + value, 0) / values.length : Number.NaN;
  const teacherMean = mean(pairs.map((pair) => pair.T.localizationSize));
  const studentMean = mean(pairs.map((pair) => pair.S.localizationSize));
  const ratios = pairs
    .filter((pair) => pair.T.localizationSize > 0)
    .map((pair) => pair.S.localizationSize / pair.T.localizationSize)
    .sort((a, b) => a - b);
  const medianRatio =
    ratios.length === 0
      ? Number.NaN
      : ratios.length % 2 === 1
        ? (ratios[(ratios.length - 1) / 2] as number)
        : ((ratios[ratios.length / 2 - 1] as number) + (ratios[ratios.length / 2] as number)) / 2;
  return {
    tasks: n,
    unpaired,
    binary,
    size: {
      teacherMean,
      studentMean,
      relativeChange: teacherMean > 0 ? (studentMean - teacherMean) / teacherMean : Number.NaN,
      medianRatio,
    },
  };
}
