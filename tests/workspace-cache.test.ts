import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PolicyModelServer, startPolicyModelServer } from "@loclab/agent";
import { buildToyBenchmark, type ToyBenchmark } from "@loclab/fixtures";
import { clearCachedWorkspaces, listWorkspaceCache } from "@loclab/tools";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loclabBin, loclabWith } from "./helpers.js";

// The workspace cache all runs share (issue 15, deliverable 6): two runs of the real CLI over
// the toy benchmark (real git) materialize each commit once, in the cache, not in their folders;
// `loclab cache ls|clear`; and a user who is not root can delete what they made.
let toy: ToyBenchmark;
let server: PolicyModelServer;
let cache: string;
beforeAll(async () => {
  toy = await buildToyBenchmark({ repositories: 2, instancesPerRepository: 2 });
  server = await startPolicyModelServer();
  cache = await mkdtemp(join(tmpdir(), "loclab-cache-"));
});
afterAll(async () => {
  await server.close();
  await toy.dispose();
  await rm(cache, { recursive: true, force: true });
});
const loclab = (...args: string[]) => loclabWith({ env: { LOCLAB_WORKSPACE_CACHE: cache } })(args);

function spec(name: string): string {
  const path = join(toy.dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      benchmark: toy.benchmark,
      seeds: [1],
      controls: [{ kind: "plain" }, { kind: "shuffled", seed: 5 }],
      endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 2 }],
      repos: toy.mirrors,
      out: `runs/${name}`,
    }),
  );
  return path;
}

describe("the shared workspace cache", () => {
  it("two runs materialize each commit once, outside their folders; cache ls shows it, clear removes it", async () => {
    const first = await loclab("run", spec("one"));
    expect(first.exitCode, first.stderr).toBe(0);
    const afterFirst = await listWorkspaceCache(cache);
    const commits = new Set(toy.rows.map((row) => `${row.repo}@${row.base_commit}`));
    expect(
      afterFirst
        .filter((entry) => entry.kind === "tree")
        .map((entry) => `${entry.repo}@${entry.commit}`)
        .sort(),
    ).toEqual([...commits].sort());
    expect(afterFirst.filter((entry) => entry.kind === "shuffled").map((entry) => entry.seed)).toEqual([5, 5]);
    expect(afterFirst.every((entry) => entry.complete && entry.files > 0 && entry.diskBytes > 0)).toBe(true);

    const second = await loclab("run", spec("two"));
    expect(second.exitCode, second.stderr).toBe(0);
    const afterSecond = await listWorkspaceCache(cache);
    // Nothing was made again: the same entries, made at the same time.
    expect(afterSecond.map((entry) => [entry.path, entry.createdAt])).toEqual(
      afterFirst.map((entry) => [entry.path, entry.createdAt]),
    );
    for (const name of ["one", "two"]) expect(readdirSync(join(toy.dir, "runs", name))).not.toContain(".workspaces");

    const listed = await loclab("cache", "ls", "--json");
    expect(JSON.parse(listed.stdout).entries).toHaveLength(afterFirst.length);
    const repo = toy.rows[0]?.repo as string;
    const cleared = await loclab("cache", "clear", "--repo", repo);
    expect(cleared.exitCode).toBe(0);
    expect(cleared.stderr).toContain(`removed ${afterFirst.filter((entry) => entry.repo === repo).length} entries`);
    expect((await listWorkspaceCache(cache)).every((entry) => entry.repo !== repo)).toBe(true);
    // A run after clearing materializes the trees again.
    expect((await loclab("run", spec("three"))).exitCode).toBe(0);
    expect((await listWorkspaceCache(cache)).some((entry) => entry.repo === repo && entry.kind === "tree")).toBe(true);
    expect(await clearCachedWorkspaces(cache, { olderThanMs: 3_600_000 })).toEqual([]);
    expect((await clearCachedWorkspaces(cache)).length).toBe(afterFirst.length);
    expect(readdirSync(cache)).toEqual([]);
  });

  const setpriv = existsSync("/usr/bin/setpriv") ? "/usr/bin/setpriv" : undefined;
  const isRoot = process.getuid?.() === 0;
  it.skipIf(!isRoot || !setpriv)(
    "a user who is not root can delete a run folder and the cache they made (needs root to switch user, and setpriv)",
    async () => {
      const home = await mkdtemp(join(tmpdir(), "loclab-user-"));
      await chmod(home, 0o777);
      await chown(home, 65534, 65534);
      // The toy benchmark and its mirrors (root's) must be readable by the other user: mkdtemp made the folder 0700.
      await chmod(toy.dir, 0o755);
      const asNobody = (...args: string[]) =>
        execa(setpriv as string, ["--reuid=65534", "--regid=65534", "--clear-groups", ...args], {
          reject: false,
          cwd: home,
          env: {
            HOME: home,
            LOCLAB_QUIET: "0",
            LOCLAB_WORKSPACE_CACHE: join(home, "cache"),
            PATH: process.env.PATH ?? "",
          },
        });
      const specPath = join(home, "spec.json");
      writeFileSync(
        specPath,
        JSON.stringify({
          benchmark: toy.benchmark,
          seeds: [1],
          controls: [{ kind: "plain" }, { kind: "shuffled", seed: 2 }],
          endpoints: [{ baseURL: server.url, model: "toy-policy", maxConcurrency: 2 }],
          repos: toy.mirrors,
          out: join(home, "run"),
        }),
      );
      const run = await asNobody(process.execPath, loclabBin, "run", specPath);
      expect(run.exitCode, run.stderr).toBe(0);
      expect((await listWorkspaceCache(join(home, "cache"))).length).toBeGreaterThan(0);
      const removed = await asNobody("rm", "-rf", join(home, "run"), join(home, "cache"));
      expect(removed.exitCode, removed.stderr).toBe(0);
      expect(existsSync(join(home, "run")) || existsSync(join(home, "cache"))).toBe(false);
      await rm(home, { recursive: true, force: true });
    },
  );
});
