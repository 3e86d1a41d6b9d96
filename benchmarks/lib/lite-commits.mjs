// The repositories' Lite base commits a mirror benchmark walks (shuffle-incremental.mjs,
// cache-physical.mjs): `--repos DIR` or LOCLAB_MIRRORS for the mirrors, `--repo R` (repeated),
// `--commits N` per repository, `--seed S`; each repository's commits in the order its tasks
// were filed, a repository without a mirror skipped and said so.
import { parseArgs } from "node:util";
import { loadBenchmark } from "@loclab/datasets";
import { findMirror } from "@loclab/tools";

/** The command line of a mirror benchmark; exits 0 with a message when no mirrors are given. */
export function mirrorBenchmarkOptions(name) {
  const { values } = parseArgs({
    options: {
      repos: { type: "string" },
      repo: { type: "string", multiple: true },
      commits: { type: "string", default: "10" },
      seed: { type: "string", default: "7" },
    },
  });
  const mirrors = values.repos ?? process.env.LOCLAB_MIRRORS;
  if (!mirrors) {
    console.log(`${name}: skipped, no mirrors (set LOCLAB_MIRRORS or pass --repos DIR)`);
    process.exit(0);
  }
  return {
    mirrors,
    repos: values.repo ?? ["sympy/sympy", "pytest-dev/pytest"],
    perRepo: Number(values.commits),
    seed: Number(values.seed),
  };
}

/** Per repository with a mirror: its first `perRepo` Lite base commits, each with the first task filed on it. */
export async function liteCommits({ mirrors, repos, perRepo }) {
  const lite = await loadBenchmark("lite");
  const out = [];
  for (const repo of repos) {
    const found = await findMirror(mirrors, repo).catch((error) => error);
    if (found instanceof Error) {
      console.log(`${repo}: skipped (${found.message})`);
      continue;
    }
    const rows = lite.instances
      .filter((row) => row.repo === repo)
      .sort((a, b) => String(a.created_at).localeCompare(String(b.created_at)));
    const commits = [...new Set(rows.map((row) => row.base_commit))].slice(0, perRepo);
    out.push({
      repo,
      commits: commits.map((commit) => ({ commit, instance: rows.find((row) => row.base_commit === commit) })),
    });
  }
  return out;
}
