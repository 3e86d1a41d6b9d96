/**
 * One repair attempt as the transfer analysis sees it (SHERLOC's transfer; docs/definitions.md
 * §9): a task under a seed, an arm and a framework, whether its final patch resolved the task,
 * its tokens split as SHERLOC splits them, and, for an arm handed a finding, the judge's
 * composite and whether the finding was injected.
 */
export interface TransferObservation {
  instanceId: string;
  seed: number | null;
  arm: string;
  /** The repair agent's framework (`loclab`, `mini-swe-agent`); default `loclab`. */
  framework?: string;
  resolved: boolean;
  tokens: {
    /** Up to the first edit, plus the localizer's own (SHERLOC's localization tokens). */
    localization: number;
    /** Everything the attempt spent, the localizer's included. */
    total: number;
  };
  /** The judge's composite of the finding this attempt was (or would have been) handed. */
  composite?: number;
  /** Whether a hand-off was injected (false for the baseline, and for a finding the judge filtered). */
  injected?: boolean;
}

/** An arm's observation and the baseline's on the same task, seed and framework. */
export interface ArmPair {
  instanceId: string;
  seed: number | null;
  framework: string;
  arm: TransferObservation;
  baseline: TransferObservation;
}

/**
 * The arm's observations paired with the baseline's on the same task × seed × framework (only
 * `framework` when given; every framework pooled otherwise), in the arm's order. Errors: two
 * observations of one arm on one task, seed and framework (a ledger read twice, or a key run
 * twice: a defect to name, not to average).
 */
export function pairWithBaseline(
  observations: readonly TransferObservation[],
  options: { arm: string; baseline: string; framework?: string },
): ArmPair[] {
  const keyOf = (o: TransferObservation) => JSON.stringify([o.instanceId, o.seed, o.framework ?? "loclab"]);
  const index = (arm: string) => {
    const map = new Map<string, TransferObservation>();
    for (const observation of observations) {
      if (observation.arm !== arm) continue;
      if (options.framework !== undefined && (observation.framework ?? "loclab") !== options.framework) continue;
      const key = keyOf(observation);
      if (map.has(key))
        throw new Error(
          `two observations of arm ${arm} on ${observation.instanceId}, seed ${observation.seed}, framework ${observation.framework ?? "loclab"}`,
        );
      map.set(key, observation);
    }
    return map;
  };
  const baseline = index(options.baseline);
  const pairs: ArmPair[] = [];
  for (const [key, arm] of index(options.arm)) {
    const base = baseline.get(key);
    if (base)
      pairs.push({
        instanceId: arm.instanceId,
        seed: arm.seed,
        framework: arm.framework ?? "loclab",
        arm,
        baseline: base,
      });
  }
  return pairs;
}
