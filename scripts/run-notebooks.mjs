#!/usr/bin/env node
// Execute notebooks headlessly with the project's tslab kernel; fail on any cell error.
//
//   node scripts/run-notebooks.mjs                      # every notebooks/*.ipynb
//   node scripts/run-notebooks.mjs notebooks/a.ipynb    # only these
//   node scripts/run-notebooks.mjs --output-dir DIR ... # executed copies go to DIR
//                                                       # (default results/notebooks)
//
// Every notebook runs with cwd = notebooks/, so tslab (which resolves modules and type
// checks from its working directory) finds the workspace packages even for a notebook
// stored elsewhere: nbconvert reads the notebook from stdin, which stops it from
// starting the kernel in the notebook's own directory.
import { spawn } from "node:child_process";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureJupyter, JUPYTER_BIN } from "./lib/jupyter.mjs";
import { findFailedCells, formatFailure } from "./lib/notebook-failures.mjs";
import { registerTslabKernel } from "./lib/tslab-kernel.mjs";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const notebooksDir = join(repoRoot, "notebooks");
const statusHook = join(repoRoot, "scripts", "lib", "nbclient_status_hook.py");
const CELL_TIMEOUT_SECONDS = 900;

function parseArgs(argv) {
  let outputDir = join(repoRoot, "results", "notebooks");
  const paths = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--output-dir") {
      const value = argv[++i];
      if (value === undefined) throw new Error("--output-dir needs a directory");
      outputDir = resolve(value);
    } else if (arg === "--help" || arg === "-h") {
      console.log("usage: node scripts/run-notebooks.mjs [--output-dir DIR] [NOTEBOOK.ipynb ...]");
      process.exit(0);
    } else if (arg.startsWith("-")) {
      throw new Error(`unknown option ${arg}`);
    } else {
      paths.push(resolve(arg));
    }
  }
  return { outputDir, paths };
}

async function selectNotebooks(paths) {
  if (paths.length > 0) {
    for (const path of paths) {
      if (!path.endsWith(".ipynb") || !existsSync(path)) throw new Error(`not a notebook file: ${path}`);
    }
    return [...paths].sort();
  }
  const names = existsSync(notebooksDir) ? await readdir(notebooksDir) : [];
  return names
    .filter((name) => name.endsWith(".ipynb"))
    .sort()
    .map((name) => join(notebooksDir, name));
}

/** Relative to the working directory when inside it, else absolute. */
function displayPath(path) {
  const relativePath = relative(process.cwd(), path);
  return relativePath === "" || relativePath.startsWith("..") ? path : relativePath;
}

/** Run a command, collecting its output; resolves with the exit code. */
function run(command, args, { cwd, env, stdinFile }) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // nbconvert may exit before reading all of stdin (bad arguments): ignore EPIPE, the
    // exit code reports the failure.
    child.stdin.on("error", () => {});
    createReadStream(stdinFile).pipe(child.stdin);
    child.on("error", (error) => resolvePromise({ code: -1, output: `${output}${error.message}\n` }));
    child.on("close", (code, signal) =>
      resolvePromise({ code: code ?? -1, output: signal ? `${output}killed by ${signal}\n` : output }),
    );
  });
}

/** Execute one notebook; returns the failure report lines (empty when it passed). */
async function executeNotebook(notebook, { outputDir, env, kernelName }) {
  const name = basename(notebook, ".ipynb");
  const args = [
    "nbconvert",
    "--to",
    "notebook",
    "--execute",
    "--config",
    statusHook,
    // Keep going after an error so that the executed notebook is written and we can
    // read the error text: nbconvert's own message is empty for tslab.
    "--allow-errors",
    `--ExecutePreprocessor.kernel_name=${kernelName}`,
    `--ExecutePreprocessor.timeout=${CELL_TIMEOUT_SECONDS}`,
    "--stdin",
    "--output",
    name,
    "--output-dir",
    outputDir,
  ];
  const { code, output } = await run(JUPYTER_BIN, args, { cwd: notebooksDir, env, stdinFile: notebook });
  if (code !== 0) {
    // Kernel died, cell timeout, unreadable notebook: nbconvert itself failed. Its last
    // line names the Python exception; the full traceback goes to a log file.
    const log = join(outputDir, `${name}.nbconvert.log`);
    await writeFile(log, output);
    const lastLine = output.trim().split("\n").at(-1) ?? "";
    return [`  nbconvert exited with code ${code}: ${lastLine}`, `  full output: ${displayPath(log)}`];
  }
  const executed = JSON.parse(await readFile(join(outputDir, `${name}.ipynb`), "utf8"));
  const { failures, aborted, statusRecorded } = findFailedCells(executed);
  const report = failures.map((failure) => formatFailure(failure));
  if (aborted.length > 0) report.push(`  not run after the error: cells ${aborted.join(", ")}`);
  if (report.length > 0) report.push(`  executed copy: ${displayPath(join(outputDir, `${name}.ipynb`))}`);
  if (!statusRecorded && executed.cells.some((cell) => cell.cell_type === "code")) {
    report.push(
      `  no cell status recorded: is nbclient too old for the on_cell_executed hook in ${relative(repoRoot, statusHook)}?`,
    );
  }
  return report;
}

async function main() {
  const { outputDir, paths } = parseArgs(process.argv.slice(2));
  const notebooks = await selectNotebooks(paths);
  if (notebooks.length === 0) {
    console.log(`no notebooks found in ${displayPath(notebooksDir)}`);
    console.log("notebooks: 0 passed, 0 failed");
    return 0;
  }
  ensureJupyter();
  const { jupyterPath, kernelName } = await registerTslabKernel(repoRoot);
  await mkdir(outputDir, { recursive: true });
  const env = {
    ...process.env,
    JUPYTER_PATH: jupyterPath,
    NO_COLOR: "1",
    // Silences pydevd's "frozen modules" warning printed by every ipykernel-era start.
    PYDEVD_DISABLE_FILE_VALIDATION: "1",
  };

  let passed = 0;
  let failed = 0;
  for (const notebook of notebooks) {
    const started = performance.now();
    const report = await executeNotebook(notebook, { outputDir, env, kernelName });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const label = displayPath(notebook);
    if (report.length === 0) {
      passed += 1;
      console.log(`PASS ${label} (${seconds} s)`);
    } else {
      failed += 1;
      console.log(`FAIL ${label} (${seconds} s)`);
      console.log(report.join("\n"));
    }
  }
  console.log(`notebooks: ${passed} passed, ${failed} failed`);
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`run-notebooks: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
