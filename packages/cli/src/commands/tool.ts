import {
  ToolError,
  type Workspace,
  connectedTree,
  openWorkspace,
  renderConnectedTree,
  renderRepoTree,
  renderSearchCode,
  renderViewFile,
  repoTree,
  searchCode,
  viewFile,
} from "@loclab/tools";
import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";

interface RepoOptions {
  repo: string;
  json?: boolean;
}

/**
 * The workspace a `loclab tool` command runs in: a git working tree (its tracked files) or a
 * plain folder (every file). Hit texts are not clipped on the command line.
 */
function openRepo(options: RepoOptions): Promise<Workspace> {
  return openWorkspace({ root: options.repo, limits: { hitTextMaxChars: 1_000_000 } });
}

/** Prints one JSON object (`--json`) or the text the model would read; a refused call is an error. */
async function print<T>(
  options: RepoOptions,
  run: () => Promise<T>,
  render: (result: T) => string,
  found: (result: T) => boolean,
): Promise<void> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    if (error instanceof ToolError) throw new Error(`${error.code}: ${error.message}`);
    throw error;
  }
  process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : render(result));
  if (!found(result)) process.exitCode = 1;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `loclab tool view|search|tree|imports`: the localizer's four tools (docs/definitions.md §1) on a
 * local checkout, as the agent sees them (text) or structured (`--json`, one object):
 * - `view --repo DIR --path P [--start N --end N]`: a window of a file, the path matched fuzzily;
 *   exit code 1 when the path is ambiguous or matches nothing (the candidates are printed);
 * - `search --repo DIR --query Q [--ignore-case] [--glob G] [--max-hits N]`: literal search;
 *   `--json` gives `{"hits": [{"path", "line", "text"}], "truncated": N, "totalHits", …}` with
 *   repository-relative paths and 1-based lines, ordered by path then line;
 * - `tree --repo DIR [--path P] [--depth N] [--include G]… [--exclude G]… [--hide-tests] [--hide-docs] [--show-vendored] [--show-hidden]`;
 * - `imports --repo DIR --path P [--depth N] [--direction D]`: the Python import graph around a
 *   file; `--json` gives `{"path", "imports": [{"path", "depth", "via"}], "importedBy": […], "external": […], …}`,
 *   repository-relative.
 * Refusals (a path outside the checkout, a binary file, …) exit 1 with the tool's message.
 */
export function registerToolCommand(program: Command): void {
  const tool = program.command("tool").description(summaryOf("tool"));

  tool
    .command("view")
    .description("show a window of a file (path matched fuzzily: exact, ignoring case, unique suffix, closest name)")
    .requiredOption("--repo <dir>", "the checkout (a git working tree or a plain folder)")
    .requiredOption("--path <path>", "the file, relative to the checkout")
    .option("--start <line>", "first line (1-based)")
    .option("--end <line>", "last line (1-based, inclusive)")
    .option("--json", "print one JSON object")
    .action(async (options: RepoOptions & { path: string; start?: string; end?: string }) => {
      const start =
        options.start === undefined ? undefined : numericOption("start", options.start, { integer: true, min: 1 });
      const end = options.end === undefined ? undefined : numericOption("end", options.end, { integer: true, min: 1 });
      const workspace = await openRepo(options);
      await print(
        options,
        () =>
          viewFile(workspace, {
            path: options.path,
            ...(start !== undefined ? { start } : {}),
            ...(end !== undefined ? { end } : {}),
          }),
        renderViewFile,
        (result) => result.status === "shown",
      );
    });

  tool
    .command("search")
    .description("find a literal string in the checkout's text files (path:line:text, ordered by path then line)")
    .requiredOption("--repo <dir>", "the checkout (a git working tree or a plain folder)")
    .requiredOption("--query <text>", "the literal text (not a regular expression)")
    .option("--ignore-case", "ignore case")
    .option("--glob <glob>", 'only files this glob selects (e.g. "*.py", "django/db", "!*.min.js")')
    .option("--max-hits <n>", "most hits printed (default 50)")
    .option("--json", "print one JSON object")
    .action(async (options: RepoOptions & { query: string; ignoreCase?: boolean; glob?: string; maxHits?: string }) => {
      const maxHits =
        options.maxHits === undefined
          ? undefined
          : numericOption("max-hits", options.maxHits, { integer: true, min: 1 });
      const workspace = await openRepo(options);
      await print(
        options,
        () =>
          searchCode(workspace, {
            query: options.query,
            ignoreCase: options.ignoreCase ?? false,
            ...(options.glob !== undefined ? { glob: options.glob } : {}),
            ...(maxHits !== undefined ? { maxHits } : {}),
          }),
        renderSearchCode,
        () => true,
      );
    });

  tool
    .command("tree")
    .description("the folder hierarchy, filtered, with counts of what is hidden")
    .requiredOption("--repo <dir>", "the checkout (a git working tree or a plain folder)")
    .option("--path <folder>", "the folder to list (default: the root)")
    .option("--depth <n>", "levels to list (default 2)")
    .option("--include <glob>", "only files a glob selects (repeatable)", collect)
    .option("--exclude <glob>", "leave out files a glob selects (repeatable)", collect)
    .option("--hide-tests", "hide test files and folders")
    .option("--hide-docs", "hide documentation")
    .option("--show-vendored", "show vendored code (hidden by default)")
    .option("--show-hidden", "show dot files (hidden by default)")
    .option("--json", "print one JSON object")
    .action(
      async (
        options: RepoOptions & {
          path?: string;
          depth?: string;
          include?: string[];
          exclude?: string[];
          hideTests?: boolean;
          hideDocs?: boolean;
          showVendored?: boolean;
          showHidden?: boolean;
        },
      ) => {
        const depth =
          options.depth === undefined
            ? undefined
            : numericOption("depth", options.depth, { integer: true, min: 1, max: 20 });
        const workspace = await openRepo(options);
        await print(
          options,
          () =>
            repoTree(workspace, {
              ...(options.path !== undefined ? { path: options.path } : {}),
              ...(depth !== undefined ? { depth } : {}),
              ...(options.include ? { include: options.include } : {}),
              ...(options.exclude ? { exclude: options.exclude } : {}),
              hideTests: options.hideTests ?? false,
              hideDocs: options.hideDocs ?? false,
              hideVendored: !options.showVendored,
              hideHidden: !options.showHidden,
            }),
          renderRepoTree,
          () => true,
        );
      },
    );

  tool
    .command("imports")
    .description("the Python import graph around a file: what it imports and what imports it")
    .requiredOption("--repo <dir>", "the checkout (a git working tree or a plain folder)")
    .requiredOption("--path <path>", "a Python file, relative to the checkout (matched fuzzily)")
    .option("--depth <n>", "import steps to follow in each direction (default 1, at most 5)")
    .option("--direction <direction>", "both, imports or importedBy", "both")
    .option("--json", "print one JSON object")
    .action(async (options: RepoOptions & { path: string; depth?: string; direction: string }) => {
      const depth =
        options.depth === undefined
          ? undefined
          : numericOption("depth", options.depth, { integer: true, min: 1, max: 5 });
      if (!["both", "imports", "importedBy"].includes(options.direction))
        throw new Error(`--direction: ${JSON.stringify(options.direction)} is not one of both, imports, importedBy`);
      const workspace = await openRepo(options);
      await print(
        options,
        () =>
          connectedTree(workspace, {
            path: options.path,
            direction: options.direction as "both" | "imports" | "importedBy",
            ...(depth !== undefined ? { depth } : {}),
          }),
        renderConnectedTree,
        (result) => result.status === "shown",
      );
    });
}
