import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll } from "vitest";

/** A file of a fixture tree: text, bytes, or a symbolic link to `target`. */
export type FixtureFile = string | Buffer | { symlink: string };

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed after the test file. */
export function temporaryDir(prefix = "loclab-tools-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes `files` (repository-relative path → content) under `root`. */
export function writeTree(root: string, files: Record<string, FixtureFile>): string {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    if (typeof content === "object" && !Buffer.isBuffer(content)) symlinkSync(content.symlink, target);
    else writeFileSync(target, content);
  }
  return root;
}

/** Runs git with a fixed identity and none of this machine's configuration. */
export function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "Fixture",
      GIT_AUTHOR_EMAIL: "fixture@example.com",
      GIT_COMMITTER_NAME: "Fixture",
      GIT_COMMITTER_EMAIL: "fixture@example.com",
      GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z",
      GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z",
    },
  });
}

/** A git repository at `dir` with one commit per entry of `commits`; returns the commit ids in order. */
export function makeGitRepo(dir: string, commits: Record<string, FixtureFile | null>[]): string[] {
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main"]);
  const ids: string[] = [];
  commits.forEach((files, i) => {
    for (const [path, content] of Object.entries(files)) {
      if (content === null) rmSync(join(dir, path), { force: true });
      else writeTree(dir, { [path]: content });
    }
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "--allow-empty", "-m", `commit ${i + 1}`]);
    ids.push(git(dir, ["rev-parse", "HEAD"]).trim());
  });
  return ids;
}

/** ripgrep: Debian's `rg`, else `@vscode/ripgrep`'s binary; undefined when neither is installed. */
export async function findRipgrep(): Promise<string | undefined> {
  for (const candidate of ["/usr/bin/rg", "/usr/local/bin/rg"]) if (existsSync(candidate)) return candidate;
  try {
    const module = (await import(/* @vite-ignore */ "@vscode/ripgrep" as string)) as { rgPath?: string };
    if (module.rgPath && existsSync(module.rgPath)) return module.rgPath;
  } catch {
    // not installed
  }
  return undefined;
}

/** Debian's own Python (the one whose packages are python3-django, python3-sympy), else python3 on PATH. */
export function findPython(): string | undefined {
  for (const candidate of ["/usr/bin/python3"]) if (existsSync(candidate)) return candidate;
  try {
    return execFileSync("which", ["python3"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const DJANGO_TREE = "/usr/lib/python3/dist-packages/django";
export const SYMPY_TREE = "/usr/lib/python3/dist-packages/sympy";
