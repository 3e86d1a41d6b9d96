/**
 * Which Python an image gets for the Python a harness spec asks for. loclab's base images come
 * from Debian suites, each shipping one CPython; the machines loclab targets reach Debian's
 * archive and the Python package index, and neither serves CPython 3.6, 3.7, 3.8 or 3.10 (no
 * Debian suite the archive still serves has them; the portable builds on the index download
 * their interpreters from GitHub). So a spec asking for one of those gets the nearest newer
 * Python the archive has, and says so: in the image's labels, in every outcome and summary.
 */

/** A CPython installed on this machine, by its prefix (see local-python.ts). */
export interface LocalPython {
  prefix: string;
  /** Its full version ("3.10.13"), read by running it. */
  version: string;
}

/** A Debian suite and the CPython (major.minor) it ships as python3, or a local CPython it hosts. */
export interface PythonBase {
  python: string;
  suite: string;
  /** A CPython on this machine put into the suite's root instead of the suite's own (see local-python.ts). */
  local?: LocalPython;
}

/** What names a base: its suite, and its local Python's prefix if it has one. */
export function baseKey(base: PythonBase): string {
  return base.local ? `${base.suite}+${base.local.prefix}` : base.suite;
}

/** The suites deb.debian.org serves, with their python3 (bullseye 3.9.2, bookworm 3.11.2). */
export const PYTHON_BASES: readonly PythonBase[] = [
  { python: "3.9", suite: "bullseye" },
  { python: "3.11", suite: "bookworm" },
];

/**
 * - `exact`: a suite ships the requested minor version.
 * - `nearest-newer`: the oldest shipped version newer than the request. Newer rather than older
 *   because code pinned for an older Python mostly runs on the next ones until an API is removed
 *   (3.10 removed the `collections` ABC aliases, 3.11 `inspect.formatargspec`, 3.12 distutils),
 *   and the nearest newer one has removed the least. Tried and measured for 3.10, the older
 *   neighbour (3.9) is worse: the harness's cached xarray environments (Python 3.10) pin
 *   packages that require 3.10 or later (bokeh 3.5.2), where 3.11 only lacks wheels for a few
 *   pins (numpy 1.23.0), which are built from their sdists.
 * - `nearest-older`: nothing newer is shipped; the newest older one.
 */
export type PythonRule = "exact" | "nearest-newer" | "nearest-older";

/** The Python an image has, as labels, outcomes and failures record it. */
export interface ImagePython {
  requested: string;
  /** The image's full version ("3.9.2"). */
  actual: string;
  rule: PythonRule;
}

/** "3.10" of "3.10.13". */
export function majorMinor(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}

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
  const newer = sameMajor.find((entry) => entry.version[1] > wanted[1]);
  if (newer) return { ...newer.base, requested, rule: "nearest-newer" };
  return { ...sameMajor[sameMajor.length - 1]!.base, requested, rule: "nearest-older" };
}

/** "3.9 (exact)", "3.9 for 3.6 (nearest-newer)": how reports name the choice. */
export function describePythonChoice(choice: Pick<PythonChoice, "python" | "requested" | "rule">): string {
  return choice.rule === "exact"
    ? `${choice.python} (exact)`
    : `${choice.python} for ${choice.requested} (${choice.rule})`;
}
