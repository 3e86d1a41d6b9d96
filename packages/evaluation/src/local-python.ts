import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type LocalPython, majorMinor, type PythonBase } from "./python-choice.js";

/*
 * A CPython installed on this machine (`LocalPython`: a prefix with bin/python3: pyenv's
 * ~/.pyenv/versions/3.10.13, a /opt/python build), offered as a base for the Python it is.
 * The Debian archive ships only 3.9 (bullseye) and 3.11 (bookworm); a machine that has built
 * another interpreter (3.6, 3.7, 3.8, 3.10) can give it, and a spec asking for that version then
 * gets it exactly instead of the nearest. The prefix is copied into the suite's root at the same
 * absolute path (a shared libpython finds itself there), with none of its site-packages but what
 * its own ensurepip bundles, so no package a user installed there reaches an environment.
 */

/** A prefix that is not a CPython installation, or one that does not run. */
export class LocalPythonError extends Error {
  constructor(
    readonly prefix: string,
    reason: string,
  ) {
    super(`local Python ${prefix}: ${reason}`);
    this.name = "LocalPythonError";
  }
}

/** The Python at a prefix, by running it; a clear error for a folder that is not one. */
export function readLocalPython(prefix: string): LocalPython {
  const python = join(prefix, "bin", "python3");
  if (!existsSync(python)) throw new LocalPythonError(prefix, `no ${python} (give a CPython installation prefix)`);
  const run = spawnSync(python, ["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"], {
    encoding: "utf8",
    env: { PATH: "/usr/bin:/bin" },
  });
  if (run.status !== 0) throw new LocalPythonError(prefix, `${python} does not run: ${(run.stderr ?? "").trim()}`);
  return { prefix, version: run.stdout.trim() };
}

/**
 * A base for a local Python, hosted by a Debian suite's root (default bookworm: the libraries a
 * CPython built on a current Debian links, libssl3 among them).
 */
export function localPythonBase(local: LocalPython, suite = "bookworm"): PythonBase {
  return { python: majorMinor(local.version), suite, local };
}
