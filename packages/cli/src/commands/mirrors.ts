import {
  checkMirrors,
  DEFAULT_REMOTE_TEMPLATE,
  fetchMirror,
  type MirrorCheckReport,
  remoteFor,
} from "@loclab/checkouts";
import { loadBenchmark } from "@loclab/datasets";
import { stampRecord } from "@loclab/schemas";
import type { Command } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

interface MirrorsOptions {
  benchmark: string;
  to?: string;
  repos?: string;
  remote?: string;
  json?: boolean;
  dataDir?: string;
}

/**
 * `loclab mirrors fetch|check`: the bare mirrors (`<owner>__<name>.git`) a benchmark's
 * checkouts are made from. `fetch` clones each repository the first time and fetches only
 * what is new afterwards, then checks; `check` only checks: every base commit present, every
 * blob of its tree readable, reported per instance (a partial mirror is found here, not in
 * the middle of a run). Exit code 1 when an instance cannot be checked out.
 */
export function registerMirrorsCommand(program: Command): void {
  const mirrors = program.command("mirrors").description(summaryOf("mirrors"));
  mirrors
    .command("fetch")
    .description("clone (or update) a bare mirror of every repository of a benchmark, then check every base commit")
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .requiredOption("--to <dir>", "the mirrors folder (<owner>__<name>.git inside)")
    .option(
      "--remote <template>",
      `where to clone from: {repo} {owner} {name} {slug} are replaced (default ${DEFAULT_REMOTE_TEMPLATE})`,
    )
    .option("--json", "print the check report as JSON")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: MirrorsOptions) => {
      const benchmark = await loadBenchmark(options.benchmark, options.dataDir ? { dataDir: options.dataDir } : {});
      const repos = [...new Set(benchmark.instances.map((instance) => instance.repo))].sort();
      const fetched: { repo: string; action: string; seconds: string; error: string }[] = [];
      for (const [index, repo] of repos.entries()) {
        const remote = remoteFor(repo, options.remote ?? DEFAULT_REMOTE_TEMPLATE);
        progress(`[${index + 1}/${repos.length}] ${repo} ← ${remote}`);
        try {
          const result = await fetchMirror({ repo, dir: options.to as string, remote });
          fetched.push({ repo, action: result.action, seconds: (result.ms / 1000).toFixed(1), error: "" });
        } catch (error) {
          // One unreachable repository does not cost the others; the check reports it per instance.
          fetched.push({ repo, action: "failed", seconds: "", error: (error as Error).message });
          progress(`${repo}: ${(error as Error).message}`);
        }
      }
      if (!options.json) printTable(fetched);
      await report(benchmark.instances, options.to as string, options.json ?? false);
    });
  mirrors
    .command("check")
    .description("check that the mirrors hold every base commit of a benchmark and every file of its tree")
    .requiredOption("-b, --benchmark <name|path>", "lite, verified, locbench, or a JSONL file of SWE-bench rows")
    .requiredOption("--repos <dir>", "the mirrors folder (<owner>__<name>[.git] inside)")
    .option("--json", "print the report as JSON")
    .option("--data-dir <dir>", "the shared data folder")
    .action(async (options: MirrorsOptions) => {
      const benchmark = await loadBenchmark(options.benchmark, options.dataDir ? { dataDir: options.dataDir } : {});
      await report(benchmark.instances, options.repos as string, options.json ?? false);
    });
}

async function report(
  instances: readonly { instance_id: string; repo: string; base_commit: string }[],
  dir: string,
  json: boolean,
): Promise<MirrorCheckReport> {
  const checked = await checkMirrors({
    instances,
    mirrors: dir,
    onProgress: (done, total, repo) => progress(`checked ${repo} (${done}/${total})`),
  });
  const bad = checked.instances.filter((instance) => instance.status !== "ok");
  if (json) process.stdout.write(`${JSON.stringify(stampRecord({ mirrors: dir, ...checked }))}\n`);
  else {
    printTable(
      checked.repositories.map((repo) => ({
        repo: repo.repo,
        mirror: repo.mirror ?? "(none)",
        instances: repo.instances,
        commits: repo.commits,
        ok: repo.ok,
        "missing commit": repo.missingCommit,
        "missing files": repo.missingBlobs,
      })),
    );
    for (const repo of checked.repositories) {
      const none = checked.instances.filter(
        (instance) => instance.repo === repo.repo && instance.status === "no-mirror",
      );
      if (none.length > 0)
        process.stdout.write(`${repo.repo}: no mirror, ${none.length} instance(s): ${none[0]?.detail ?? ""}\n`);
    }
    for (const instance of bad.filter((instance) => instance.status !== "no-mirror")) {
      const what =
        instance.status === "missing-blobs"
          ? `${instance.missing.length} of ${instance.files} files missing (${instance.missing.slice(0, 3).join(", ")}${instance.missing.length > 3 ? ", …" : ""})`
          : (instance.detail ?? instance.status);
      process.stdout.write(`${instance.instanceId}: ${instance.status}: ${what}\n`);
    }
  }
  progress(`${instances.length - bad.length} of ${instances.length} instances can be checked out from ${dir}`);
  if (bad.length > 0) process.exitCode = 1;
  return checked;
}
