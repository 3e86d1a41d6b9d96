/** One candidate of a task, with its softmax weight (`solveTemperature`). */
export interface WeightedCandidate {
  candidate: string;
  /** softmax(s / τ) weight, in [0, 1]. */
  weight: number;
  /** The teacher's localization (at most one per task). */
  teacher?: boolean;
}

export interface AnchorOptions {
  /** M, candidates kept at most; default 3. */
  top?: number;
  /** A candidate is kept only with a softmax weight at least this; default 0.01. */
  minWeight?: number;
  /** β, the weight the teacher's localization is given as an anchor; default 0.5. */
  anchor?: number;
}

export interface AnchoredCandidate {
  candidate: string;
  /** The softmax weight it came in with. */
  softmaxWeight: number;
  /** Its training weight: 0 unless kept or the teacher. A task's weights sum to 1. */
  weight: number;
  /** Among the top M with weight ≥ minWeight. */
  kept: boolean;
  teacher: boolean;
}

/**
 * The training weights of one task's candidates (docs/definitions.md §6): keep the M best by
 * softmax weight among those with weight ≥ `minWeight` (ties by the order given), then give the
 * teacher's localization the anchor weight β and let the kept candidates share 1 − β in
 * proportion to their softmax weights, so the task's weights sum to 1.
 *
 * loclab's choices where FGL is silent: the teacher's localization is a candidate like the
 * others, so when it is among the kept ones its share comes on top of β (it is one training
 * record, with weight β + share); a task without a teacher gives the kept candidates all of 1;
 * with β = 1 the teacher alone is trained on.
 *
 * @param candidates a task's candidates in a fixed order (their softmax weights need not sum to
 *   1 exactly; they are only compared and divided)
 * @returns one row per candidate, in the order given
 * @throws {RangeError} on a bad option, a weight outside [0, 1], several teachers, or no
 *   candidate that can be kept and no teacher
 * @example anchorWeights([{ candidate: "a", weight: 0.6 }, { candidate: "t", weight: 0.4, teacher: true }]).map((r) => r.weight) // [0.3, 0.7]
 */
export function anchorWeights(
  candidates: readonly WeightedCandidate[],
  options: AnchorOptions = {},
): AnchoredCandidate[] {
  const top = options.top ?? 3;
  const minWeight = options.minWeight ?? 0.01;
  const anchor = options.anchor ?? 0.5;
  if (!Number.isInteger(top) || top < 1) throw new RangeError(`anchorWeights: top must be an integer ≥ 1, got ${top}`);
  if (!(minWeight >= 0 && minWeight <= 1))
    throw new RangeError(`anchorWeights: minWeight must be in [0, 1], got ${minWeight}`);
  if (!(anchor >= 0 && anchor <= 1))
    throw new RangeError(`anchorWeights: the anchor β must be in [0, 1], got ${anchor}`);
  for (const { candidate, weight } of candidates) {
    if (!(weight >= 0 && weight <= 1 + 1e-12))
      throw new RangeError(`anchorWeights: candidate ${candidate}: weight ${weight} is not in [0, 1]`);
  }
  const teachers = candidates.filter((candidate) => candidate.teacher);
  if (teachers.length > 1)
    throw new RangeError(
      `anchorWeights: ${teachers.length} candidates are marked as the teacher (${teachers.map((t) => t.candidate).join(", ")}); a task has one`,
    );
  const order = candidates
    .map((candidate, index) => ({ candidate, index }))
    .sort((a, b) => b.candidate.weight - a.candidate.weight || a.index - b.index);
  const kept = new Set(
    order
      .filter(({ candidate }) => candidate.weight >= minWeight && candidate.weight > 0)
      .slice(0, top)
      .map(({ index }) => index),
  );
  const hasTeacher = teachers.length === 1;
  if (kept.size === 0 && !hasTeacher)
    throw new RangeError(
      `anchorWeights: no candidate has a weight ≥ ${minWeight}, and there is no teacher to anchor on`,
    );
  const keptSum = [...kept].reduce((sum, index) => sum + (candidates[index] as WeightedCandidate).weight, 0);
  // Without a kept candidate the teacher takes everything; without a teacher the kept share 1.
  const share = hasTeacher ? (kept.size > 0 ? 1 - anchor : 0) : 1;
  const teacherWeight = hasTeacher ? (kept.size > 0 ? anchor : 1) : 0;
  return candidates.map((candidate, index) => {
    const isKept = kept.has(index);
    const fromShare = isKept ? (share * candidate.weight) / keptSum : 0;
    return {
      candidate: candidate.candidate,
      softmaxWeight: candidate.weight,
      weight: fromShare + (candidate.teacher ? teacherWeight : 0),
      kept: isKept,
      teacher: candidate.teacher === true,
    };
  });
}
