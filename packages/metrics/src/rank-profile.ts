/**
 * Everything the ranking metrics of one instance need, from one pass over the ranking:
 * the cumulative count of distinct gold items at each rank, the first gold rank, and the
 * running sum behind average precision. `scoreLocalization` reads every hit@k, acc@k,
 * recall@k, precision@k, MRR and MAP off one profile (O(1) each) instead of walking the
 * ranking once per metric and k; the single-metric functions (`hitAtK`, …) are the
 * reference it is tested against.
 */
export interface RankProfile {
  goldSize: number;
  length: number;
  /** hitsAt[r] = distinct gold items among the first r predictions (hitsAt[0] = 0). */
  hitsAt: Uint32Array;
  /** apSumAt[r] = Σ precision@j over gold ranks j ≤ r. */
  apSumAt: Float64Array;
  /** 1-based rank of the first gold item; 0 when none. */
  firstGoldRank: number;
}

/** |P_k ∩ G| read off a profile. */
export function hitsAtKOf(profile: RankProfile, k: number): number {
  return profile.hitsAt[Math.min(k, profile.length)] as number;
}

/** Σ precision@r over gold ranks r ≤ cutoff, read off a profile. */
export function apSumOf(profile: RankProfile, cutoff: number): number {
  return profile.apSumAt[Math.min(cutoff, profile.length)] as number;
}

/** An empty profile whose buffers `fillRankProfile` grows and reuses. */
export function newRankProfile(): RankProfile {
  return { goldSize: 0, length: 0, hitsAt: new Uint32Array(17), apSumAt: new Float64Array(17), firstGoldRank: 0 };
}

/**
 * `rankProfile` over integer codes (see `Interner`), into reused buffers: the first `length`
 * codes of `ranked` (no repeats), gold membership read from `gold`. Scoring 10,000 instances ×
 * 20 runs would otherwise allocate two arrays per instance and level; the profile is
 * overwritten by the next call, so read it before that. The scorer's hot loop.
 */
export function fillRankProfileOfCodes(
  profile: RankProfile,
  ranked: Int32Array,
  length: number,
  gold: { has(code: number): boolean },
): RankProfile {
  if (profile.hitsAt.length <= length) {
    profile.hitsAt = new Uint32Array(2 * length + 1);
    profile.apSumAt = new Float64Array(2 * length + 1);
  }
  const { hitsAt, apSumAt } = profile;
  let hits = 0;
  let apSum = 0;
  let firstGoldRank = 0;
  hitsAt[0] = 0;
  apSumAt[0] = 0;
  for (let i = 0; i < length; i += 1) {
    if (gold.has(ranked[i] as number)) {
      hits += 1;
      apSum += hits / (i + 1);
      if (firstGoldRank === 0) firstGoldRank = i + 1;
    }
    hitsAt[i + 1] = hits;
    apSumAt[i + 1] = apSum;
  }
  profile.length = length;
  profile.firstGoldRank = firstGoldRank;
  return profile;
}
