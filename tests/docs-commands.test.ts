import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dataDir, loclabWith, scratch } from "./helpers.js";

// Every `loclab` command that README.md or a page of docs/ shows, so the docs cannot rot:
// each is checked against the CLI's own help (the command exists; every option it uses is one
// that command lists: docs/cli.md is generated from that help and checked by cli-doc.test.ts),
// and those that need only the bundled data and this machine are run as written (in a scratch
// folder, with `../shared/data` pointing at the data folder), exit code 0. The rest need
// something a test cannot have (GPUs, the network, a model server on a fixed port, files the
// reader brings); each is named below with why.

const root = fileURLToPath(new URL("..", import.meta.url));

function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".md") ? [join(dir, entry.name)] : [],
    );
  return [join(root, "README.md"), ...walk(join(root, "docs"))].filter((file) => !file.endsWith("docs/cli.md"));
}

interface DocCommand {
  file: string;
  line: string;
  argv: string[];
}

/** The `npx loclab …` lines of a file's sh blocks (continuations joined, comments cut). */
function commandsOf(file: string): DocCommand[] {
  const text = readFileSync(file, "utf8");
  const out: DocCommand[] = [];
  for (const block of text.matchAll(/```(?:sh|bash|shell)\n([\s\S]*?)```/g)) {
    for (const raw of (block[1] as string).replace(/\\\n\s*/g, " ").split("\n")) {
      const line = raw
        .replace(/\s+#.*$/, "")
        .replace(/\s*&$/, "")
        .replace(/\s+/g, " ")
        .trim();
      if (!line.startsWith("npx loclab")) continue;
      out.push({ file: relative(root, file), line, argv: line.split(/\s+/).slice(2) });
    }
  }
  return out;
}

const commands = docFiles().flatMap(commandsOf);

/** `loclab <path> --help` per command path, memoized. */
const helps = new Map<string, Promise<string>>();
const loclab = loclabWith({ cwd: root });
function helpOf(path: string[]): Promise<string> {
  const key = path.join(" ");
  let help = helps.get(key);
  if (!help) helps.set(key, (help = loclab([...path, "--help"]).then((result) => result.stdout)));
  return help;
}

/** The command path of an argv: the longest prefix of words the CLI's help lists as commands. */
async function commandPath(argv: string[]): Promise<string[]> {
  const path: string[] = [];
  for (const word of argv) {
    if (word.startsWith("-")) break;
    const listed = new RegExp(`^ {2}${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "m");
    const help = await helpOf(path);
    const commandsAt = help.indexOf("\nCommands:\n");
    if (commandsAt < 0 || !listed.test(help.slice(commandsAt))) break;
    path.push(word);
  }
  return path;
}

/** Commands that a test runs as written: only the bundled data and this machine. */
const RUN = new Set([
  "npx loclab --help",
  "npx loclab datasets",
  "npx loclab gold --benchmark lite --json",
  "npx loclab score --benchmark lite --predictions ../shared/data/localization/blagent/gpt-oss-lite.jsonl --format blagent --preset blagent --json",
  "npx loclab mcnemar --b 5 --c 1 --json",
  "npx loclab compare --resolved ../shared/data/resolved/lite.csv --holm --json",
  "npx loclab compare --predictions ../shared/data/localization/blagent/gpt-oss-lite.jsonl --predictions ../shared/data/localization/blagent/claude-4-6-lite.jsonl -b lite -f blagent --preset blagent",
  "npx loclab score -b lite -p ../shared/data/localization/blagent/gpt-oss-lite.jsonl -f blagent --per-instance per-instance.jsonl",
  "npx loclab power --psi 0.18 --delta 0.0595 --json",
  "npx loclab mask --benchmark lite --out masked/lite.jsonl",
  "npx loclab tool search --repo /usr/lib/python3/dist-packages/django --query get_FOO_display --json",
  "npx loclab fgl weights --scores fgl/scores.jsonl --ess 2 --top 3 --anchor 0.5",
  "npx loclab report ../shared/data/trajectories/swe-agent_gpt4_lite --format swe-agent --out site-swe",
]);

describe("every loclab command the docs show", () => {
  it("finds the commands", () => {
    expect(commands.length).toBeGreaterThan(40);
    console.log(
      `${commands.length} documented loclab commands in ${new Set(commands.map((command) => command.file)).size} files; ${commands.filter((command) => RUN.has(command.line)).length} run as written`,
    );
  });

  for (const command of commands) {
    it(`${command.file}: ${command.line.slice(0, 110)} — its command and options exist`, async () => {
      const argv = command.argv.filter((word) => word !== "...");
      const path = await commandPath(argv);
      const help = await helpOf(path);
      for (const option of argv.filter((word) => /^--?[a-zA-Z]/.test(word))) {
        const name = option.split("=")[0] as string;
        expect(help, `${command.file}: "${name}" is not an option of loclab ${path.join(" ")}`).toMatch(
          new RegExp(`(^|[\\s,])${name.replace(/[-]/g, "\\-")}([\\s,<[=]|$)`, "m"),
        );
      }
    });
  }

  for (const line of RUN) {
    it(`runs as written: ${line.slice(0, 110)}`, async () => {
      expect(commands.map((command) => command.line)).toContain(line);
      const cwd = scratch("loclab-docs-command-");
      if (line.includes("fgl/scores.jsonl")) {
        // The weights example reads scores `fgl score` wrote; a test writes two tasks' scores of that shape.
        const { mkdirSync, writeFileSync } = await import("node:fs");
        mkdirSync(join(cwd, "fgl"));
        const scores = ["a", "b", "c", "d"].flatMap((candidate, i) =>
          ["t1", "t2"].map((task) => ({ task, candidate, score: -10 - i, teacher: i === 0 })),
        );
        writeFileSync(join(cwd, "fgl", "scores.jsonl"), scores.map((row) => JSON.stringify(row)).join("\n"));
      }
      if (
        line.includes("/usr/lib/python3/dist-packages/django") &&
        !existsSync("/usr/lib/python3/dist-packages/django")
      )
        throw new Error("Debian python3-django is missing (npm test installs it)");
      const argv = line
        .split(/\s+/)
        .slice(2)
        .map((word) => word.replace(/^\.\.\/shared\/data/, dataDir));
      const result = await loclabWith({ cwd, env: { LOCLAB_DATA_DIR: dataDir } })(argv);
      expect(result.exitCode, `${line}\n${result.stderr}`).toBe(0);
      expect(result.stdout.length + result.stderr.length).toBeGreaterThan(0);
    });
  }
});
