import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkMirrors, fetchMirror, remoteFor } from "@loclab/checkouts";
import { commitFiles, fixtureGit } from "@loclab/fixtures";
import { materializeWorkspace } from "@loclab/tools";
import { loclab } from "./helpers.js";

// `loclab mirrors fetch|check` (issue 15, deliverable 1) with local repositories as the remote:
// a first clone, an incremental fetch after the remote moved on, an unknown commit, a repository
// the remote does not have, and a partial mirror (one blob removed) reported per instance.

let root: string;
let source: string;
let first: string;
const row = (id: string, repo: string, commit: string) => ({
  instance_id: id,
  repo,
  base_commit: commit,
  problem_statement: "x",
  patch: "",
});

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "loclab-mirrors-"));
  source = join(root, "remotes", "acme__widgets");
  first = await commitFiles(source, {
    "widgets/__init__.py": "",
    "widgets/core.py": "def f():\n    return 1\n",
    "data/big.bin": "large file\n",
  });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function writeBenchmark(name: string, rows: object[]): Promise<string> {
  const file = join(root, name);
  await writeFile(file, rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
  return file;
}

describe("loclab mirrors", () => {
  it("clones each repository, then fetches only what is new, and checks every base commit", async () => {
    const template = `${join(root, "remotes")}/{slug}`;
    expect(remoteFor("acme/widgets", template)).toBe(source);
    const benchmark = await writeBenchmark("one.jsonl", [
      row("acme__widgets-1", "acme/widgets", first),
      row("acme__gadgets-1", "acme/gadgets", first),
    ]);
    const to = join(root, "mirrors");
    // A clone an earlier, killed run left half done is started over, not taken for a mirror.
    await mkdir(join(to, "acme__widgets.git.partial-999999"), { recursive: true });
    const cloned = await loclab("mirrors", "fetch", "--benchmark", benchmark, "--to", to, "--remote", template);
    // acme/gadgets is not at the remote: reported, and the exit code says an instance cannot be checked out.
    expect(cloned.exitCode).toBe(1);
    expect(cloned.stdout).toMatch(/\|acme\/widgets\|cloned\|/);
    expect(cloned.stdout).toMatch(/\|acme\/gadgets\|failed\|/);
    expect(cloned.stdout).toMatch(/acme\/gadgets: no mirror, 1 instance/);
    expect(cloned.stderr).toContain("1 of 2 instances can be checked out");
    expect(fixtureGit(join(to, "acme__widgets.git"), "rev-parse", "--is-bare-repository").trim()).toBe("true");
    expect((await readdir(to)).filter((name) => name.includes("partial"))).toEqual([]);

    // The remote moves on; the next fetch brings the new commit into the same mirror.
    await writeFile(join(source, "widgets/core.py"), "def f():\n    return 2\n");
    fixtureGit(source, "commit", "-qam", "second");
    const second = fixtureGit(source, "rev-parse", "HEAD").trim();
    const two = await writeBenchmark("two.jsonl", [
      row("acme__widgets-1", "acme/widgets", first),
      row("acme__widgets-2", "acme/widgets", second),
      row("acme__widgets-3", "acme/widgets", "f".repeat(40)),
    ]);
    const fetched = await loclab("mirrors", "fetch", "--benchmark", two, "--to", to, "--remote", template, "--json");
    const report = JSON.parse(fetched.stdout);
    expect(report.instances.map((i: { instanceId: string; status: string }) => [i.instanceId, i.status])).toEqual([
      ["acme__widgets-1", "ok"],
      ["acme__widgets-2", "ok"],
      ["acme__widgets-3", "missing-commit"],
    ]);
    expect(fetched.exitCode).toBe(1);
    const again = await fetchMirror({ repo: "acme/widgets", dir: to, remote: source });
    expect(again.action).toBe("fetched");
  });

  it("reports a partial mirror per instance, naming the files it lacks", async () => {
    const partial = join(root, "partial");
    // A mirror whose objects are loose files (a local clone copies them as they are), so one can be removed.
    fixtureGit(root, "clone", "-q", "--bare", "--no-hardlinks", source, join(partial, "acme__widgets.git"));
    const blob = fixtureGit(source, "rev-parse", `${first}:data/big.bin`).trim();
    const loose = join(partial, "acme__widgets.git", "objects", blob.slice(0, 2), blob.slice(2));
    expect(existsSync(loose)).toBe(true);
    await unlink(loose);
    const second = fixtureGit(source, "rev-parse", "HEAD").trim();
    const report = await checkMirrors({
      instances: [row("acme__widgets-1", "acme/widgets", first), row("acme__widgets-2", "acme/widgets", second)],
      mirrors: partial,
    });
    // Both commits share the blob (data/big.bin did not change).
    expect(report.instances.map((i) => [i.instanceId, i.status, i.missing])).toEqual([
      ["acme__widgets-1", "missing-blobs", ["data/big.bin"]],
      ["acme__widgets-2", "missing-blobs", ["data/big.bin"]],
    ]);
    expect(report.repositories).toEqual([
      {
        repo: "acme/widgets",
        mirror: join(partial, "acme__widgets.git"),
        instances: 2,
        commits: 2,
        ok: 0,
        missingCommit: 0,
        missingBlobs: 2,
      },
    ]);
    const cli = await loclab(
      "mirrors",
      "check",
      "--benchmark",
      await writeBenchmark("p.jsonl", [row("acme__widgets-1", "acme/widgets", first)]),
      "--repos",
      partial,
    );
    expect(cli.exitCode).toBe(1);
    expect(cli.stdout).toContain("acme__widgets-1: missing-blobs: 1 of 3 files missing (data/big.bin)");
    // Materializing from it fails with the same diagnosis, naming the file, not with git's words alone.
    await expect(
      materializeWorkspace({
        instance: { repo: "acme/widgets", base_commit: first },
        mirrors: partial,
        cacheDir: join(root, "cache"),
      }),
    ).rejects.toMatchObject({
      code: "partial-mirror",
      message: expect.stringContaining("lacks the contents of data/big.bin"),
    });
  });
});
