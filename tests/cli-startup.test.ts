import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

// Start-up: a command loads its own module and its dependencies only (issue 18). The real bin
// runs with a module-resolution hook that records every URL it resolves.
const bin = fileURLToPath(new URL("../packages/cli/bin/loclab.mjs", import.meta.url));
const tracer = fileURLToPath(new URL("./startup/trace-imports.mjs", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "loclab-startup-"));

async function resolvedBy(args: string[]): Promise<{ urls: string[]; stdout: string; exitCode: number | undefined }> {
  const file = join(scratch, `${args.join("_").replace(/\W+/g, "-")}.txt`);
  const result = await execa(process.execPath, ["--import", tracer, bin, ...args], {
    reject: false,
    env: { LOCLAB_TRACE_IMPORTS: file },
  });
  return { urls: readFileSync(file, "utf8").trim().split("\n"), stdout: result.stdout, exitCode: result.exitCode };
}

const packageOf = (url: string): string | undefined => {
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url) ?? /\/packages\/([^/]+)\/dist\//.exec(url);
  if (!match) return undefined;
  return match[1]?.includes("/") || url.includes("/node_modules/") ? match[1] : `@loclab/${match[1]}`;
};
const packagesOf = (urls: string[]) =>
  new Set(urls.map(packageOf).filter((name): name is string => name !== undefined));

describe("CLI start-up", () => {
  it("`loclab --help` loads commander and the CLI's own index, no command module", async () => {
    const { urls, stdout, exitCode } = await resolvedBy(["--help"]);
    expect(exitCode).toBe(0);
    expect(stdout).toMatch(/^\s+mcnemar\b/m);
    expect([...packagesOf(urls)].sort()).toEqual(["@loclab/cli", "commander"]);
    expect(urls.filter((url) => url.includes("/cli/dist/commands/"))).toEqual([]);
  });

  it("`loclab mcnemar` loads the statistics package, not arquero, zod, openai, execa or the Docker client", async () => {
    const { urls, stdout, exitCode } = await resolvedBy(["mcnemar", "--b", "5", "--c", "1", "--json"]);
    expect(exitCode).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ b: 5, c: 1, p: 0.21875000000000003, midP: 0.125 });
    const loaded = packagesOf(urls);
    expect(loaded.has("@loclab/statistics")).toBe(true);
    for (const heavy of [
      "arquero",
      "zod",
      "openai",
      "execa",
      "dockerode",
      "@loclab/scoring",
      "@loclab/tools",
      "@loclab/runner",
    ])
      expect(loaded.has(heavy), heavy).toBe(false);
    expect(
      urls.filter((url) => url.includes("/cli/dist/commands/")).map((url) => url.replace(/.*\/commands\//, "")),
    ).toEqual(["mcnemar.js"]);
  });

  it("`loclab help score` and `loclab score --help` load the score command's module", async () => {
    for (const args of [
      ["help", "score"],
      ["score", "--help"],
    ]) {
      const { urls, stdout, exitCode } = await resolvedBy(args);
      expect(exitCode).toBe(0);
      expect(stdout).toContain("--predictions");
      expect(
        urls.filter((url) => url.includes("/cli/dist/commands/")).map((url) => url.replace(/.*\/commands\//, "")),
      ).toEqual(["score.js"]);
    }
  });
});
