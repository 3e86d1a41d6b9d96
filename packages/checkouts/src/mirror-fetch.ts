import { existsSync } from "node:fs";
import { mkdir, readdir, rename, rm } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { runGit } from "@loclab/tools";

/** The remote a repository is cloned from when none is given: its public GitHub URL. */
export const DEFAULT_REMOTE_TEMPLATE = "https://github.com/{repo}.git";

/**
 * The remote of `owner/name` from a template: `{repo}` (owner/name), `{owner}`, `{name}`,
 * `{slug}` (owner__name). `file:///srv/mirrors/{slug}.git` or a plain folder path work too.
 *
 * @example remoteFor("psf/requests", "https://github.com/{repo}.git") // "https://github.com/psf/requests.git"
 */
export function remoteFor(repo: string, template: string = DEFAULT_REMOTE_TEMPLATE): string {
  const [owner = "", name = ""] = repo.split("/");
  return template
    .replaceAll("{repo}", repo)
    .replaceAll("{owner}", owner)
    .replaceAll("{name}", name)
    .replaceAll("{slug}", `${owner}__${name}`);
}

/** Where `mirrors fetch` keeps a repository's bare mirror: `<dir>/<owner>__<name>.git`. */
export function mirrorFolder(dir: string, repo: string): string {
  return join(resolve(dir), `${repo.replace("/", "__")}.git`);
}

export interface FetchMirrorResult {
  repo: string;
  path: string;
  remote: string;
  action: "cloned" | "fetched";
  ms: number;
}

/**
 * Makes or updates the bare mirror of one repository under `dir` (`<owner>__<name>.git`):
 * `git clone --mirror` the first time, into a temporary folder renamed into place when the
 * clone is complete (an interrupted clone leaves no mirror that looks whole); afterwards `git
 * fetch --prune` of the mirror's own refspec, which fetches only what is new. The remote is
 * the one recorded in the mirror when it exists (`remote` is used for new mirrors). Git's
 * errors are thrown as `WorkspaceError("git-failed")` naming the command.
 */
export async function fetchMirror(options: { repo: string; dir: string; remote?: string }): Promise<FetchMirrorResult> {
  const started = Date.now();
  const path = mirrorFolder(options.dir, options.repo);
  const remote = options.remote ?? remoteFor(options.repo);
  if (existsSync(path)) {
    await runGit(["--git-dir", path, "fetch", "--prune", "--quiet", "origin"], { cwd: path, safeDirectory: "*" });
    return { repo: options.repo, path, remote, action: "fetched", ms: Date.now() - started };
  }
  await mkdir(resolve(options.dir), { recursive: true });
  // Clones an earlier run left half done (killed, or the network gone) start over.
  const prefix = `${basename(path)}.partial-`;
  for (const name of await readdir(resolve(options.dir)))
    if (name.startsWith(prefix)) await rm(join(resolve(options.dir), name), { recursive: true, force: true });
  const temporary = `${path}.partial-${process.pid}`;
  try {
    await runGit(["clone", "--mirror", "--quiet", "--", remote, temporary], { cwd: resolve(options.dir) });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
  return { repo: options.repo, path, remote, action: "cloned", ms: Date.now() - started };
}
