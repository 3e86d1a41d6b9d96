// Teacher localizations against real checkouts (issue 16, evidence; needs mirrors): for every
// task of the four real runs whose repository has a mirror in LOCLAB_MIRRORS (or --repos DIR),
// each line a trajectory is recognised to have shown is compared with that line of the file at
// base commit, and AutoCodeRover's reads are given lines from the checkout. Prints per run the
// lines compared and how many differ, and ACR's reads resolved / unresolved with the reasons.
//
//   LOCLAB_MIRRORS=/path/to/mirrors node benchmarks/fgl-teacher-checkouts.mjs
import { join } from "node:path";
import { listTrajectories, readTrajectory, readTrajectoryManifest, REAL_TRAJECTORY_RUNS } from "@loclab/analysis";
import { loadBenchmark, resolveDataDir } from "@loclab/datasets";
import { checkoutCode, teacherLocalization } from "@loclab/fgl";
import { defaultWorkspaceCacheDir, findMirror, materializeWorkspace } from "@loclab/tools";

const repos = process.argv.includes("--repos")
  ? process.argv[process.argv.indexOf("--repos") + 1]
  : process.env.LOCLAB_MIRRORS;
if (!repos) {
  console.log(
    "fgl-teacher-checkouts: skipped, give LOCLAB_MIRRORS or --repos DIR (a folder of <owner>__<name>.git mirrors)",
  );
  process.exit(0);
}
const dataDir = resolveDataDir();
const ids = (await readTrajectoryManifest(dataDir)).core_instance_set.ids;
const rows = new Map((await loadBenchmark("lite")).instances.map((row) => [row.instance_id, row]));
const available = [];
for (const id of ids) {
  try {
    await findMirror(repos, rows.get(id).repo);
    available.push(id);
  } catch {}
}
console.log(`${available.length} of ${ids.length} tasks have a mirror in ${repos}: ${available.join(", ")}`);
console.log(`|run|tasks checked out|observed lines compared|differ|reads|ACR reads resolved|unresolved|`);
for (const run of REAL_TRAJECTORY_RUNS) {
  const entries = (await listTrajectories(join(dataDir, "trajectories", run.name), run.format)).filter((e) =>
    available.includes(e.instanceId),
  );
  let compared = 0,
    differ = 0,
    reads = 0,
    resolved = 0,
    unresolved = 0,
    checked = 0;
  const reasons = {};
  const examples = [];
  for (const entry of entries) {
    const row = rows.get(entry.instanceId);
    let code;
    try {
      code = checkoutCode(
        await materializeWorkspace({ instance: row, mirrors: repos, cacheDir: defaultWorkspaceCacheDir() }),
      );
    } catch (error) {
      console.log(`  ${run.name} ${entry.instanceId}: no checkout (${error.message})`);
      continue;
    }
    checked += 1;
    const teacher = await teacherLocalization(await readTrajectory(entry.path, run.format), { repo: row.repo, code });
    reads += teacher.reads.length;
    for (const read of teacher.observed) {
      if (read.code !== undefined) resolved += 1;
      const file = (await code.file(read.path))?.lines;
      for (const [line, text] of read.lines ?? []) {
        compared += 1;
        if (file?.[line - 1] !== text) {
          differ += 1;
          if (examples.length < 5)
            examples.push(
              `${entry.instanceId} ${read.path}:${line} (${read.via}): ${JSON.stringify(text)} vs ${JSON.stringify(file?.[line - 1])}`,
            );
        }
      }
    }
    for (const u of teacher.unresolved) {
      unresolved += 1;
      resolved -= u.read.code !== undefined ? 1 : 0;
      const key = u.reason
        .replace(/ for .* is not in .*/, " is not in the file")
        .replace(/: \S+ does not exist/, ": file does not exist");
      reasons[key] = (reasons[key] ?? 0) + 1;
    }
  }
  console.log(
    `|${run.name}|${checked}|${compared}|${differ}|${reads}|${run.format === "autocoderover" ? resolved : "–"}|${unresolved}|`,
  );
  for (const e of examples) console.log(`  differs: ${e}`);
  for (const [k, n] of Object.entries(reasons)) console.log(`  unresolved ${n}× ${k}`);
}
process.exit(0);
