import { readdirSync, readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { parseResolvedMatrix } from "@loclab/statistics";
import type { FileProblem } from "../read/file-problem.js";
import { statOrUndefined } from "../read/stat-or-undefined.js";
import {
  combineResolvedLabels,
  type ResolvedLabels,
  type ResolvedLabelSource,
  resolvedLabelSourceFromJson,
  resolvedLabelSourceFromMatrix,
} from "./resolved-labels.js";

/** Label files are small; anything larger is not one and is not read. */
const MAX_LABEL_FILE_BYTES = 64 * 1024 * 1024;
/** How deep below a run folder label files are looked for (gemini's logs/<id>/report.json is 2). */
const MAX_DEPTH = 3;
/** Files that are never label files: trajectories and the per-instance files of the agents. */
const NOT_LABELS =
  /(\.traj|\.traj\.json|\.traj\.jsonl)$|^(preds|tool_call_sequence|cost|extract_status|meta|stats)\.json$|^conversation_round_\d+\.json$/;

/** What was found: the labels (null when no label file was found) and the files that could not be read. */
export interface FoundResolvedLabels {
  labels: ResolvedLabels | null;
  problems: FileProblem[];
}

function labelSourceOfText(path: string, text: string): ResolvedLabelSource | undefined {
  const json: unknown = JSON.parse(text);
  const folder = basename(dirname(path));
  return resolvedLabelSourceFromJson(json, {
    source: path,
    ...(basename(path) === "report.json" && folder.includes("__") ? { instanceId: folder } : {}),
  });
}

/**
 * Looks for the run's resolved labels inside its folder, where the formats keep them (up to 3
 * levels down): every `.json` that is not a trajectory or an agent's per-instance file is
 * read and kept if it has a label shape (resolvedLabelSourceFromJson): SWE-bench run reports
 * (`resolved_ids`), results.json-style `resolved` lists (AutoCodeRover
 * new_eval_results/report.json, SWE-agent final_report.json), per-instance report.json files
 * (logs/<id>/report.json), mini-swe-agent's results_summary.json. A JSON file that does not
 * parse is a problem, not an error.
 */
export async function findResolvedLabels(dir: string): Promise<FoundResolvedLabels> {
  const sources: ResolvedLabelSource[] = [];
  const problems: FileProblem[] = [];
  // Synchronous, as listTrajectories: a run keeps a report.json per instance (logs/<id>/), and
  // the awaited readdir, stat and read of each left the process idle for a third of a real
  // run's reading (42 reports, 19 ms of 52).
  const walk = (folder: string, depth: number): void => {
    const entries = readdirSync(folder, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const target = entry.isSymbolicLink() ? statOrUndefined(path) : entry;
      if (!target) continue;
      if (target.isDirectory()) {
        if (depth < MAX_DEPTH) walk(path, depth + 1);
        continue;
      }
      if (!target.isFile() || extname(entry.name) !== ".json" || NOT_LABELS.test(entry.name)) continue;
      try {
        if (statSync(path).size > MAX_LABEL_FILE_BYTES) continue;
        const source = labelSourceOfText(path, readFileSync(path, "utf8"));
        if (source) sources.push(source);
      } catch (error) {
        problems.push({
          path,
          reason: `not a readable label file: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    }
  };
  walk(dir, 0);
  return { labels: sources.length > 0 ? combineResolvedLabels(sources) : null, problems };
}

/**
 * Reads labels given explicitly (`--resolved NAME=FILE`): a resolved-matrix CSV (the column
 * named `column`, else its only system column; `FILE#column` picks one), a JSON label file of
 * any known shape, or a folder searched like a run folder.
 *
 * Errors: the file cannot be read or is not a label file; a CSV with several columns and none
 * named `column`.
 */
export async function readResolvedLabels(path: string, options: { column?: string } = {}): Promise<ResolvedLabels> {
  const hash = path.lastIndexOf("#");
  const file = hash > 0 && path.slice(0, hash).toLowerCase().endsWith(".csv") ? path.slice(0, hash) : path;
  const explicitColumn = file === path ? undefined : path.slice(hash + 1);
  const info = await stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`cannot read resolved labels ${file}: ${error.code ?? error.message}`);
  });
  if (info.isDirectory()) {
    const found = await findResolvedLabels(file);
    if (!found.labels) throw new Error(`no resolved-label file found in ${file}`);
    return found.labels;
  }
  if (extname(file).toLowerCase() === ".csv") {
    const matrix = parseResolvedMatrix(await readFile(file, "utf8"), { source: file });
    const column =
      explicitColumn ??
      (options.column !== undefined && matrix.systems.includes(options.column)
        ? options.column
        : matrix.systems.length === 1
          ? matrix.systems[0]
          : undefined);
    if (column === undefined)
      throw new Error(
        `${file} has ${matrix.systems.length} system columns and none named ${JSON.stringify(options.column ?? "")}: pick one with ${file}#COLUMN`,
      );
    return combineResolvedLabels([resolvedLabelSourceFromMatrix(matrix, { column, source: file })]);
  }
  let source: ResolvedLabelSource | undefined;
  try {
    source = labelSourceOfText(file, await readFile(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!source)
    throw new Error(
      `${file}: not a resolved-label file (expected resolved_ids, a resolved list, instances[].resolved, or a per-instance report)`,
    );
  return combineResolvedLabels([source]);
}
