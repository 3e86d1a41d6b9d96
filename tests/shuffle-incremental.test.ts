import { appendFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { buildCalcFixture, buildToyBenchmark, type CalcFixture, type ToyBenchmark } from "@loclab/fixtures";
import { materializeWorkspace, shuffleRepository } from "@loclab/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { temporaryFolder, treeDigest } from "./shuffle/tree-helpers.js";

// The shuffle of a new commit reuses the facts parsed for earlier ones (a facts store keyed by
// each file's bytes): on every commit of the fixtures' real git mirrors, the copy made with a
// store warmed by the commits before it is the copy made from scratch, byte for byte, with the
// same mapping. benchmarks/shuffle-incremental.mjs does the same on SWE-bench mirrors.
let toy: ToyBenchmark;
let calc: CalcFixture;
let work: Awaited<ReturnType<typeof temporaryFolder>>;
beforeAll(async () => {
  work = await temporaryFolder("loclab-shuffle-incremental-");
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 3 });
  calc = await buildCalcFixture({ dir: join(work.path, "calc") });
});
afterAll(async () => {
  await toy?.dispose();
  await work?.cleanup();
});

/**
 * A clone of a fixture's mirror with three more commits on top (a module edited, a package
 * added that imports an existing module, a module deleted): the history a shuffle meets from
 * one benchmark task to the next. Returns the clone's mirrors folder.
 */
async function withHistory(repo: string, mirrors: string): Promise<string> {
  const slug = repo.replace("/", "__");
  const into = join(work.path, "mirrors", slug);
  const git = (...args: string[]) =>
    execa("git", ["-C", into, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
  await execa("git", ["clone", "-q", join(mirrors, `${slug}.git`), into]);
  const { stdout } = await git("ls-files", "*.py");
  const modules = stdout.split("\n").filter((path) => path.endsWith(".py") && !path.endsWith("__init__.py"));
  const [edited, deleted] = [modules[0], modules[modules.length - 1]];
  if (!edited || !deleted || edited === deleted) throw new Error(`${repo}: fewer than two modules to change`);
  await appendFile(join(into, edited), "\n\ndef added_later():\n    return 1\n");
  await git("commit", "-qam", "edit a module");
  const importable = edited
    .replace(/\.py$/, "")
    .replace(/^src\//, "")
    .replaceAll("/", ".");
  await mkdir(join(into, "laterpkg"), { recursive: true });
  await writeFile(
    join(into, "laterpkg", "__init__.py"),
    `import ${importable}\nfrom ${importable} import added_later\n`,
  );
  await git("add", "laterpkg");
  await git("commit", "-qm", "add a package");
  await git("rm", "-q", deleted);
  await git("commit", "-qm", "delete a module");
  return join(work.path, "mirrors");
}

/** Every commit of a mirror, oldest first. */
async function commitsOf(mirror: string): Promise<string[]> {
  const { stdout } = await execa("git", ["-C", mirror, "rev-list", "--all", "--reverse", "--topo-order"]);
  return stdout.split("\n").filter(Boolean);
}

const mappingOf = async (file: string) => {
  const { provenance: _provenance, ...mapping } = JSON.parse(await readFile(file, "utf8"));
  return mapping;
};

describe("incremental shuffles", () => {
  it("on every commit of the fixtures' mirrors: with the facts of the commits before it, the same copy and mapping as from scratch", async () => {
    const fixtures = [
      ...toy.rows.map((row) => ({ repo: row.repo, mirrors: toy.mirrors })),
      { repo: calc.row.repo, mirrors: calc.mirrors },
    ].filter((entry, i, all) => all.findIndex((other) => other.repo === entry.repo) === i);
    const repositories: { repo: string; mirrors: string }[] = [];
    for (const { repo, mirrors } of fixtures) repositories.push({ repo, mirrors: await withHistory(repo, mirrors) });
    const factsDir = join(work.path, "facts");
    let commits = 0;
    let reused = 0;
    for (const { repo, mirrors } of repositories) {
      const mirror = join(mirrors, repo.replace("/", "__"));
      for (const commit of await commitsOf(mirror)) {
        const workspace = await materializeWorkspace({
          instance: { repo, base_commit: commit },
          mirrors,
          cacheDir: join(work.path, "trees"),
        });
        const at = (name: string) => join(work.path, "copies", commit, name);
        await shuffleRepository({ repo: workspace.root, out: at("scratch"), mapping: at("scratch.json"), seed: 11 });
        const report = await shuffleRepository({
          repo: workspace.root,
          out: at("incremental"),
          mapping: at("incremental.json"),
          seed: 11,
          factsDir,
        });
        expect(await treeDigest(at("incremental")), `${repo}@${commit}`).toEqual(await treeDigest(at("scratch")));
        expect(await mappingOf(at("incremental.json")), `${repo}@${commit}`).toEqual(
          await mappingOf(at("scratch.json")),
        );
        commits += 1;
        reused += report.factsReused ?? 0;
      }
    }
    expect(repositories.length).toBeGreaterThanOrEqual(3);
    expect(commits).toBe(repositories.length * 4);
    // The store was used: later commits found most of their files' facts (not a vacuous comparison).
    expect(reused).toBeGreaterThan(commits);
  });

  it("a facts file cut short (a kill while writing) is parsed again, and the copy is still the copy from scratch", async () => {
    const row = toy.rows[0]!;
    const workspace = await materializeWorkspace({
      instance: row,
      mirrors: toy.mirrors,
      cacheDir: join(work.path, "trees"),
    });
    const factsDir = join(work.path, "facts-torn");
    const at = (name: string) => join(work.path, "torn", name);
    await shuffleRepository({ repo: workspace.root, out: at("first"), mapping: at("first.json"), seed: 3, factsDir });
    const { stdout } = await execa("find", [factsDir, "-name", "*.json"]);
    const files = stdout.split("\n").filter(Boolean);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) await execa("truncate", ["-s", "7", file]);
    const again = await shuffleRepository({
      repo: workspace.root,
      out: at("again"),
      mapping: at("again.json"),
      seed: 3,
      factsDir,
    });
    expect(again.factsReused).toBe(0);
    expect(await treeDigest(at("again"))).toEqual(await treeDigest(at("first")));
  });
});
