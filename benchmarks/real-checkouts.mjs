// Measurement on the real SWE-bench repositories at their base commits (issue 15): needs git
// mirrors, so it runs only when LOCLAB_MIRRORS (or --repos DIR) names a folder of them
// (`<owner>__<name>[.git]`, e.g. made by `loclab mirrors fetch`). Instances whose repository
// has no mirror are left out and counted. Sections:
//
//   gold      every hunk placed on the pre-image, against `git apply -v --check --cached` at
//             base commit: offsets equal per hunk; spans that moved and by how much;
//   agreement exact function gold vs LocAgent's edited_entities (Lite) and CoSIL's gt files;
//   masking   path masking with the patches' files vs the base commit's full file list;
//   shuffle   per repository, one base commit: imports that name the original top-level
//             package before (absent modules, CPython's ast) and after shuffling, compileall
//             and the independent import census before and after.
//
//   LOCLAB_MIRRORS=/work/mirrors node benchmarks/real-checkouts.mjs [--sections gold,agreement,masking,shuffle]
//
// Figures are printed and written to results/real-checkouts.json; nothing is asserted.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { checkMirrors, filesAtCommit, goldAtBaseCommit } from "@loclab/checkouts";
import { maskBenchmark } from "@loclab/controls";
import { loadBenchmark, resolveDataDir } from "@loclab/datasets";
import { parsePatch } from "@loclab/gold";
import { readCosilGold, readLocAgentGold } from "@loclab/predictions";
import { compareFunctionGold } from "@loclab/scoring";
import { findMirror, materializeWorkspace, shuffleRepository } from "@loclab/tools";
import { topLevelPackageNames } from "@loclab/controls";

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: { repos: { type: "string" }, sections: { type: "string", default: "gold,agreement,masking,shuffle" } },
});
const mirrors = values.repos ?? process.env.LOCLAB_MIRRORS;
if (!mirrors || !existsSync(mirrors)) {
  console.log(
    "real-checkouts: skipped (set LOCLAB_MIRRORS or pass --repos DIR: a folder of git mirrors; loclab mirrors fetch makes one)",
  );
  process.exit(0);
}
const sections = new Set(values.sections.split(","));
const results = { mirrors, sections: [...sections] };

// Instances that can be checked out: mirror, commit and every blob present.
const benchmarks = {};
/** Instances whose whole tree is readable (a checkout can be materialized). */
const complete = {};
for (const name of ["lite", "verified"]) {
  const { instances } = await loadBenchmark(name);
  const check = await checkMirrors({ instances, mirrors });
  const ok = new Set(
    check.instances
      .filter((instance) => instance.status !== "no-mirror" && instance.status !== "missing-commit")
      .map((instance) => instance.instanceId),
  );
  benchmarks[name] = instances.filter((instance) => ok.has(instance.instance_id));
  complete[name] = new Set(
    check.instances.filter((instance) => instance.status === "ok").map((instance) => instance.instanceId),
  );
  results[`${name}Instances`] = {
    total: instances.length,
    checkable: benchmarks[name].length,
    repositories: [...new Set(benchmarks[name].map((i) => i.repo))].sort(),
    partial: check.instances
      .filter((i) => i.status === "missing-blobs")
      .map((i) => `${i.instanceId}: ${i.missing.join(", ")}`),
  };
  console.log(
    `${name}: ${benchmarks[name].length} of ${instances.length} instances can be checked out (${results[`${name}Instances`].repositories.length} repositories)`,
  );
}

const golds = {};
for (const name of ["lite", "verified"])
  golds[name] = (await goldAtBaseCommit({ instances: benchmarks[name], mirrors })).golds;

if (sections.has("gold")) {
  const scratch = await mkdtemp(join(tmpdir(), "loclab-gitapply-"));
  const out = {};
  for (const name of ["lite", "verified"]) {
    let hunks = 0;
    let agree = 0;
    const disagreements = [];
    let gitFailures = 0;
    for (const instance of benchmarks[name]) {
      const mirror = await findMirror(mirrors, instance.repo);
      const index = join(scratch, "index");
      const patchFile = join(scratch, "patch.diff");
      await writeFile(patchFile, instance.patch);
      const env = { ...process.env, GIT_INDEX_FILE: index };
      await run("git", ["-c", "safe.directory=*", "--git-dir", mirror.gitDir, "read-tree", instance.base_commit], {
        env,
      });
      const applied = await run(
        "git",
        ["-c", "safe.directory=*", "--git-dir", mirror.gitDir, "apply", "--cached", "--check", "-v", patchFile],
        { env, maxBuffer: 1 << 26 },
      ).catch((error) => ({ stderr: error.stderr, failed: true }));
      if (applied.failed) gitFailures += 1;
      // git's offsets per file, by hunk number.
      const gitOffsets = new Map();
      let file;
      for (const line of String(applied.stderr).split("\n")) {
        const checking = /^Checking patch (.+)\.\.\.$/.exec(line);
        if (checking) {
          file = checking[1].replace(/ => .*$/, "");
          gitOffsets.set(file, new Map());
        }
        const hunk = /^Hunk #(\d+) succeeded at \d+ \(offset (-?\d+) lines?\)/.exec(line);
        if (hunk && file) gitOffsets.get(file).set(Number(hunk[1]), Number(hunk[2]));
      }
      const gold = golds[name].find((g) => g.instanceId === instance.instance_id);
      for (const filePatch of parsePatch(instance.patch)) {
        if (!filePatch.oldPath || filePatch.status === "added" || filePatch.binary) continue;
        const ours = gold.hunks.filter((h) => h.path === filePatch.oldPath).map((h) => h.offset ?? 0);
        const theirs = filePatch.hunks.map((_, i) => gitOffsets.get(filePatch.oldPath)?.get(i + 1) ?? 0);
        for (const [i, offset] of ours.entries()) {
          hunks += 1;
          if (offset === theirs[i]) agree += 1;
          else
            disagreements.push(
              `${instance.instance_id} ${filePatch.oldPath} hunk ${i + 1}: ours ${offset}, git ${theirs[i]}`,
            );
        }
      }
    }
    const moved = golds[name].filter((g) => g.spans.some((s) => s.offset));
    const offsets = golds[name].flatMap((g) => g.spans.filter((s) => s.offset).map((s) => s.offset));
    out[name] = {
      instances: golds[name].length,
      hunks,
      hunksAgreeingWithGitApply: agree,
      disagreements,
      gitApplyFailures: gitFailures,
      unplaced: golds[name].filter((g) => g.unplaced.length > 0).map((g) => g.instanceId),
      instancesWithMovedSpans: moved.map((g) => ({
        instance: g.instanceId,
        offsets: [...new Set(g.spans.filter((s) => s.offset).map((s) => s.offset))],
      })),
      spansMoved: offsets.length,
      spans: golds[name].reduce((sum, g) => sum + g.spans.length, 0),
      offsetRange: offsets.length ? [Math.min(...offsets), Math.max(...offsets)] : [],
    };
    console.log(
      `gold ${name}: ${agree}/${hunks} hunks at git apply's offset; ${moved.length} instances with ${offsets.length} of ${out[name].spans} spans moved (${out[name].offsetRange.join(" to ")} lines)`,
    );
    for (const line of disagreements.slice(0, 5)) console.log(`  ${line}`);
  }
  results.gold = out;
  await rm(scratch, { recursive: true, force: true });
}

if (sections.has("agreement")) {
  const data = resolveDataDir();
  const out = {};
  for (const name of ["lite", "verified"]) {
    const exact = new Map(golds[name].map((g) => [g.instanceId, g.exact.functions]));
    const classes = new Set(
      golds[name].flatMap((g) => g.exact.symbols.filter((s) => s.kind === "class").map((s) => `${s.path}:${s.name}`)),
    );
    const peers = {};
    if (name === "lite") {
      const locagent = await readLocAgentGold(join(data, "localization/locagent/claude35-lite.jsonl"));
      peers["LocAgent edited_entities"] = new Map([...locagent].map(([id, g]) => [id, g.functions]));
    }
    const cosil = await readCosilGold(join(data, `localization/cosil/gt-${name}.json`));
    peers[`CoSIL gt-${name}`] = new Map(
      [...cosil].map(([id, entries]) => [id, entries.filter((e) => e.includes("::")).map((e) => e.replace("::", ":"))]),
    );
    out[name] = {};
    for (const [peer, gold] of Object.entries(peers)) {
      const agreement = compareFunctionGold(exact, gold, { classes });
      out[name][peer] = {
        instances: agreement.instances,
        same: agreement.same,
        instancesByKind: agreement.instancesByKind,
        byKind: agreement.byKind,
        examples: agreement.perInstance.filter((r) => !r.same).slice(0, 40),
      };
      console.log(
        `agreement ${name} vs ${peer}: ${agreement.same}/${agreement.instances} identical; instances by kind ${JSON.stringify(agreement.instancesByKind)}`,
      );
    }
  }
  results.agreement = out;
}

if (sections.has("masking")) {
  const out = {};
  for (const name of ["lite", "verified"]) {
    const instances = benchmarks[name];
    const lists = new Map();
    for (const instance of instances)
      lists.set(
        instance.instance_id,
        await filesAtCommit({ mirrors, repo: instance.repo, commit: instance.base_commit }),
      );
    const patches = maskBenchmark(instances);
    const full = maskBenchmark(instances, { knownFilesOf: (instance) => ({ files: lists.get(instance.instance_id) }) });
    const absent = patches.rows.flatMap((row) =>
      row.report.replacements
        .filter((r) => !new Set(lists.get(row.instanceId)).has(r.file))
        .map((r) => `${row.instanceId}: ${r.original} → ${r.file}`),
    );
    const gained = full.rows.flatMap((row, i) => {
      const before = new Set(patches.rows[i].report.replacements.map((r) => `${r.start}`));
      return row.report.replacements
        .filter((r) => !before.has(`${r.start}`))
        .map((r) => `${row.instanceId}: ${r.original}`);
    });
    out[name] = {
      instances: instances.length,
      patches: { ...patches.summary, replacementsOfFilesAbsentAtBaseCommit: absent },
      baseCommit: {
        ...full.summary,
        replacementsNotFoundWithPatchesOnly: gained.length,
        examples: gained.slice(0, 15),
      },
      stillRevealingAfter: full.rows
        .filter((row) => row.after.path || row.after.module || row.after.basename)
        .map((row) => row.instanceId),
    };
    console.log(
      `masking ${name}: replaced with patches ${JSON.stringify(patches.summary.mentionsReplaced)}, with the full list ${JSON.stringify(full.summary.mentionsReplaced)}; left alone ${patches.summary.leftAlone} → ${full.summary.leftAlone}; patch-mode masks of absent files ${absent.length}; revealing after (path/module/basename) ${JSON.stringify(full.summary.revealingAfter)}`,
    );
  }
  results.masking = out;
}

if (sections.has("shuffle")) {
  const scratch = await mkdtemp(join(tmpdir(), "loclab-realshuffle-"));
  const leaks = join(here, "lib", "import_leaks.py");
  const census = join(here, "..", "tests", "fixtures", "import_census.py");
  const compileErrors = async (tree) => {
    const result = await run("python3", ["-m", "compileall", "-q", "-j", "2", tree], { maxBuffer: 1 << 28 }).catch(
      (error) => error,
    );
    return (String(result.stdout).match(/\*\*\* Error compiling/g) ?? []).length;
  };
  const out = {};
  const all = [...benchmarks.lite, ...benchmarks.verified];
  // Per repository, the oldest and the newest base commit whose whole tree is readable.
  const picks = [];
  for (const repo of [...new Set(all.map((i) => i.repo))].sort()) {
    const ordered = all
      .filter((i) => i.repo === repo && (complete.lite.has(i.instance_id) || complete.verified.has(i.instance_id)))
      .sort((a, b) => (a.created_at ?? "").localeCompare(b.created_at ?? ""));
    for (const instance of [...new Set([ordered[0], ordered.at(-1)])]) if (instance) picks.push(instance);
  }
  for (const instance of picks) {
    const repo = instance.repo;
    const workspace = await materializeWorkspace({ instance, mirrors, cacheDir: join(scratch, "cache") });
    const original = workspace.root;
    const names = topLevelPackageNames(await filesAtCommit({ mirrors, repo, commit: instance.base_commit }));
    const shuffledTree = join(scratch, instance.instance_id, "tree");
    const report = await shuffleRepository({
      repo: original,
      out: shuffledTree,
      mapping: join(scratch, instance.instance_id, "mapping.json"),
      seed: 1,
    });
    const py = async (...args) => JSON.parse((await run("python3", args, { maxBuffer: 1 << 28 })).stdout);
    const before = await py(leaks, original, names.join(","), "--absent-only");
    const after = await py(leaks, shuffledTree, names.join(","));
    const [censusBefore, censusAfter] = [await py(census, original), await py(census, shuffledTree)];
    const [errorsBefore, errorsAfter] = [await compileErrors(original), await compileErrors(shuffledTree)];
    out[`${repo}@${instance.base_commit.slice(0, 10)}`] = {
      instance: instance.instance_id,
      commit: instance.base_commit,
      topLevel: names,
      importsOfAbsentModulesNamingTopLevel: before.statements,
      importsNamingTopLevelAfterShuffle: after.statements,
      afterExamples: after.examples,
      beforeExamples: before.examples,
      prefixRenamed: report.imports.prefixRenamed,
      importsLeftNamingRepository: report.importsLeftNamingRepository,
      skippedInErrors: report.imports.skippedInErrors,
      hiddenRenamed: report.hiddenRenamed,
      compileErrors: { before: errorsBefore, after: errorsAfter },
      census: {
        before: censusBefore,
        after: censusAfter,
        same: JSON.stringify(censusBefore) === JSON.stringify(censusAfter),
      },
    };
    await rm(join(scratch, instance.instance_id), { recursive: true, force: true });
    console.log(
      `shuffle ${repo} @ ${instance.base_commit.slice(0, 10)}: imports of absent modules naming ${names.join("/")} ${before.statements} → after shuffling ${after.statements}; compile errors ${errorsBefore} → ${errorsAfter}; census equal ${JSON.stringify(censusBefore) === JSON.stringify(censusAfter)}; hidden renamed ${report.hiddenRenamed.length}`,
    );
  }
  results.shuffle = out;
  await rm(scratch, { recursive: true, force: true });
}

mkdirSync(join(here, "..", "results"), { recursive: true });
writeFileSync(join(here, "..", "results", "real-checkouts.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log("wrote results/real-checkouts.json");
