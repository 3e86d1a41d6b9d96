/**
 * Which Python an image gets for the Python a harness spec asks for. loclab's base images come
 * from Debian suites, each shipping one CPython; the machines loclab targets reach Debian's
 * archive and the Python package index, and neither serves CPython 3.6, 3.7, 3.8 or 3.10 (no
 * Debian suite the archive still serves has them; the portable builds on the index download
 * their interpreters from GitHub). So a spec asking for one of those gets the nearest Python
 * the archive has, and says so: in the image's labels, in every outcome and summary.
 */

/** A Debian suite and the CPython (major.minor) it ships as python3. */
export interface PythonBase {
  python: string;
  suite: string;
}

/** The suites deb.debian.org serves, with their python3 (bullseye 3.9.2, bookworm 3.11.2). */
export const PYTHON_BASES: readonly PythonBase[] = [
  { python: "3.9", suite: "bullseye" },
  { python: "3.11", suite: "bookworm" },
];

/**
 * - `exact`: a suite ships the requested minor version.
 * - `nearest-newer` / `nearest-older`: the shipped version fewest minor versions away
 *   (3.6, 3.7, 3.8 → 3.9; 3.12 → 3.11). On a tie the older one (3.10 → 3.9, not 3.11): the
 *   packages a spec pins were released for the Python it asks for and the ones before it, so
 *   they ship wheels for the older neighbour and often none for the newer (xarray 0.12 pins
 *   numpy 1.23.0: wheels for 3.8–3.10, none for 3.11), and a newer Python removes APIs the
 *   code of the time uses (3.11 `inspect.formatargspec`), while code that supports 3.10 of
 *   that time mostly still supports 3.9.
 */
export type PythonRule = "exact" | "nearest-newer" | "nearest-older";

export interface PythonChoice extends PythonBase {
  requested: string;
  rule: PythonRule;
}

export class PythonChoiceError extends Error {
  constructor(
    readonly requested: string,
    reason: string,
  ) {
    super(`Python "${requested}": ${reason}`);
    this.name = "PythonChoiceError";
  }
}

function minorOf(version: string): [number, number] | undefined {
  const match = /^\s*(\d+)\.(\d+)(?:\.\d+)?\s*$/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** The base for a requested Python ("3.6", "3.9.2"), by the rule above; a clear error for a malformed or other-major request. */
export function choosePython(requested: string, bases: readonly PythonBase[] = PYTHON_BASES): PythonChoice {
  const wanted = minorOf(requested);
  if (!wanted) throw new PythonChoiceError(requested, 'not a version of the form "3.9" or "3.9.2"');
  const sameMajor = bases
    .map((base) => ({ base, version: minorOf(base.python) }))
    .filter((entry): entry is { base: PythonBase; version: [number, number] } => entry.version?.[0] === wanted[0])
    .sort((a, b) => a.version[1] - b.version[1]);
  if (sameMajor.length === 0)
    throw new PythonChoiceError(
      requested,
      `no base image ships Python ${wanted[0]} (bases: ${bases.map((base) => `${base.python} (${base.suite})`).join(", ")})`,
    );
  const exact = sameMajor.find((entry) => entry.version[1] === wanted[1]);
  if (exact) return { ...exact.base, requested, rule: "exact" };
  // Sorted oldest first, so on equal distance the older one is found first and kept.
  let nearest = sameMajor[0]!;
  for (const entry of sameMajor)
    if (Math.abs(entry.version[1] - wanted[1]) < Math.abs(nearest.version[1] - wanted[1])) nearest = entry;
  return { ...nearest.base, requested, rule: nearest.version[1] > wanted[1] ? "nearest-newer" : "nearest-older" };
}

/** "3.9 (exact)", "3.9 for 3.6 (nearest-newer)": how reports name the choice. */
export function describePythonChoice(choice: Pick<PythonChoice, "python" | "requested" | "rule">): string {
  return choice.rule === "exact"
    ? `${choice.python} (exact)`
    : `${choice.python} for ${choice.requested} (${choice.rule})`;
}
