import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ResultPromise, execa } from "execa";
import { describe, expect, it } from "vitest";
import { loclabBin } from "./helpers.js";

// README.md's commands for a newcomer, run as written: the install-and-build line in a fresh
// copy of the repository, and "A first run with the test model" (the real test model through
// `loclab serve`, `loclab demo`, the spec as printed, score and breakdown). Only the port
// differs (8000 may be taken here): the serve line's `--port 8000` and the spec's
// `127.0.0.1:8000` both become a free port.
const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");

/** The fenced block of `lang` that follows `heading` in the README. */
function blockAfter(heading: string, lang: string): string {
  const at = readme.indexOf(heading);
  if (at < 0) throw new Error(`README.md has no ${JSON.stringify(heading)}`);
  const match = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(readme.slice(at));
  if (!match) throw new Error(`no \`\`\`${lang} block after ${JSON.stringify(heading)}`);
  return match[1] as string;
}
/** A shell line without its comment and trailing `&`. */
const command = (line: string) =>
  line
    .replace(/\s+#.*$/, "")
    .replace(/\s*&$/, "")
    .trim();

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe("README: a newcomer's commands, as written", () => {
  it("the install-and-build line, in a fresh copy of the repository, gives a working CLI", async () => {
    const quick = blockAfter("## Quick start", "sh").split("\n").map(command).filter(Boolean);
    const install = quick[0] as string;
    expect(install).toBe("npm ci && npm run build");
    const copy = mkdtempSync(join(tmpdir(), "loclab-readme-install-"));
    try {
      // The tracked files as they are in the working tree (what a clone of this commit has).
      const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
        .split("\0")
        .filter(Boolean);
      for (const file of files) {
        if (!existsSync(join(root, file))) continue;
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        cpSync(join(root, file), join(copy, file));
      }
      // Turbo's local cache comes along when there is one: the copy's build then restores the
      // packages whose inputs are unchanged instead of compiling them again (a clean build of
      // every package is what `npm test` itself does first, on the clone CI makes).
      if (existsSync(join(root, ".turbo", "cache")))
        cpSync(join(root, ".turbo", "cache"), join(copy, ".turbo", "cache"), { recursive: true });
      const built = await execa("bash", ["-c", install], {
        cwd: copy,
        reject: false,
        env: { TURBO_TELEMETRY_DISABLED: "1", NO_COLOR: "1" },
      });
      expect(built.exitCode, built.stderr.slice(-2000)).toBe(0);
      const help = await execa(process.execPath, [join(copy, "packages", "cli", "dist", "bin.js"), "--help"], {
        cwd: copy,
        reject: false,
      });
      expect(help.exitCode, help.stderr).toBe(0);
      expect(help.stdout).toContain("Commands:");
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("a first run with the test model: serve, demo, run, score, breakdown, report", async () => {
    const lines = blockAfter("## A first run with the test model", "sh").split("\n").map(command).filter(Boolean);
    expect(lines.every((line) => line.startsWith("npx loclab "))).toBe(true);
    const port = await freePort();
    const argv = (line: string) =>
      line
        .replace(/^npx loclab /, "")
        .replace("--port 8000", `--port ${port}`)
        .split(/\s+/);
    const spec = blockAfter("`demo-run.json`:", "json");
    expect(spec).toContain("http://127.0.0.1:8000/v1");
    const dir = mkdtempSync(join(tmpdir(), "loclab-readme-run-"));
    writeFileSync(join(dir, "demo-run.json"), spec.replace("127.0.0.1:8000", `127.0.0.1:${port}`));
    let server: ResultPromise | undefined;
    try {
      const [serveLine, ...rest] = lines;
      expect(serveLine).toMatch(/^npx loclab serve --test-model --port 8000$/);
      server = execa(process.execPath, [loclabBin, ...argv(serveLine as string)], { cwd: dir, reject: false });
      for (;;) {
        const ok = await fetch(`http://127.0.0.1:${port}/health`)
          .then((response) => response.ok)
          .catch(() => false);
        if (ok) break;
        if (server.exitCode !== null && server.exitCode !== undefined)
          throw new Error(`loclab serve exited: ${(await server).stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const outputs: Record<string, string> = {};
      for (const line of rest) {
        const result = await execa(process.execPath, [loclabBin, ...argv(line)], { cwd: dir, reject: false });
        expect(result.exitCode, `${line}\n${result.stderr.slice(-2000)}`).toBe(0);
        outputs[line] = result.stdout;
      }
      const records = readFileSync(join(dir, "runs", "demo", "attempts.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { outcome: string; leaks?: { instanceId: number } });
      expect(records).toHaveLength(3);
      expect(records.every((record) => record.leaks?.instanceId === 0)).toBe(true);
      expect(records.some((record) => record.outcome === "model_error")).toBe(false);
      expect(outputs["npx loclab run score runs/demo"]).toContain("leak audit per cell");
      expect(outputs["npx loclab breakdown runs/demo"]).toContain("|seed-1/shuffled-7|1|");
      // The site: a trajectory file per attempt, and the summary, made by the report line.
      expect(outputs["npx loclab report runs/demo --out runs/demo-site"]).toContain("3 trajectory files written");
      expect(readFileSync(join(dir, "runs", "demo-site", "data", "summary.js"), "utf8")).toMatch(
        /^loclabData\("summary",/,
      );
    } finally {
      server?.kill("SIGINT");
      await server?.catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
    // No time limit (vitest.config.ts): the spec's own budgets bound the run (3 attempts of at most 30 s).
  });
});
