import { pathsInToolCall, type Trajectory } from "@loclab/analysis";
import { type FilePatch, hasPreImage, parsePatch, symbolFromHunkSection } from "@loclab/gold";
import { repoKeyFromInstanceId } from "@loclab/schemas";
import type { CodeSource } from "./code-source.js";
import { editorReads } from "./editor-reads.js";
import { type FglLocation, mergeLocations } from "./fgl-location.js";
import { firstEditStep } from "./first-edit.js";
import type { ObservedRead } from "./observed-read.js";
import { searchReads } from "./search-reads.js";
import { repositoryPath, resolvePath, shellReads } from "./shell-reads.js";

/** A read that could not be given lines, and why. */
export interface UnresolvedRead {
  read: ObservedRead;
  reason: string;
}

/** The teacher's localization of one task, derived from a real trajectory (docs/definitions.md §5). */
export interface TeacherLocalization {
  instanceId: string;
  format: Trajectory["format"];
  source: string;
  /** The step of the first edit (the cut); null when the trajectory never edits (every step counts). */
  cutStep: number | null;
  /** Steps before the cut. */
  stepsBeforeCut: number;
  /** The code the final patch edits: each hunk's pre-image lines (changed lines and git's context), role `edit`. */
  edits: FglLocation[];
  /** The code viewed before the cut, merged per file, role `read`; reads of files the agent created are left out. */
  reads: FglLocation[];
  /** Every read recognised before the cut, as observed (with the lines it showed, when it showed them). */
  observed: ObservedRead[];
  /** Recognised reads by how they were recognised (`sed -n`, `open`, `search_class`, …). */
  recognisedBy: Record<string, number>;
  unresolved: UnresolvedRead[];
  /** The final patch's files, parsed (for rendering the edited code without a checkout). */
  patchFiles: FilePatch[];
}

export interface TeacherOptions {
  /** The final patch; default the trajectory's own (`outcome.patch`). */
  patch?: string | null;
  /** `owner/name`: SWE-agent's paths are under `/owner__name`. */
  repo?: string;
  /** The file at base commit, to give lines to reads that need the file (a `tail`, AutoCodeRover's code). */
  code?: CodeSource;
}

/**
 * The teacher's localization: cut the trajectory at its first edit (`firstEditStep`); the code
 * viewed before the cut (per format: `shellReads` for mini-swe-agent's bash, `editorReads` for
 * SWE-agent's windows, `searchReads` for AutoCodeRover's search results) and the code the final
 * patch edits. A read whose lines are not known from the trajectory is given them from `code`
 * (the file at base commit) when it is at hand, else listed in `unresolved`.
 */
export async function teacherLocalization(
  trajectory: Trajectory,
  options: TeacherOptions = {},
): Promise<TeacherLocalization> {
  const patch = options.patch === undefined ? trajectory.outcome.patch : options.patch;
  const patchFiles = patch && patch.trim() !== "" ? parsePatch(patch, { instanceId: trajectory.instanceId }) : [];
  const patched = patchFiles.flatMap((file) =>
    hasPreImage(file) ? [file.oldPath!] : file.newPath !== null ? [file.newPath] : [],
  );
  const cut = firstEditStep(trajectory, patched);
  const root = rootOf(trajectory.format, options.repo, trajectory.instanceId);
  const observed: ObservedRead[] = [];
  const created = new Set<string>();
  for (const step of trajectory.steps) {
    if (cut !== undefined && step.index >= cut) break;
    for (const call of step.toolCalls) {
      for (const word of pathsInToolCall(call).created) {
        const path = repositoryPath(resolvePath(root, word), root);
        if (path) created.add(path);
      }
      observed.push(
        ...readsOfCall(trajectory.format, call.name, call.arguments, call.observation, step.index, root).filter(
          (read) => !created.has(read.path),
        ),
      );
    }
  }
  const recognisedBy: Record<string, number> = {};
  for (const read of observed) recognisedBy[read.via] = (recognisedBy[read.via] ?? 0) + 1;
  const unresolved: UnresolvedRead[] = [];
  const reads: FglLocation[] = [];
  for (const read of observed) {
    const placed = await placeRead(read, options.code);
    if ("reason" in placed) unresolved.push({ read, reason: placed.reason });
    else if (placed.startLine <= placed.endLine) reads.push({ ...placed, role: "read" });
  }
  return {
    instanceId: trajectory.instanceId,
    format: trajectory.format,
    source: trajectory.source,
    cutStep: cut ?? null,
    stepsBeforeCut: cut ?? trajectory.steps.length,
    edits: editedCode(patchFiles),
    reads: mergeLocations(reads),
    observed,
    recognisedBy,
    unresolved,
    patchFiles,
  };
}

/** The pre-image lines of each hunk of a patch (changed lines with git's context), role `edit`; created files have none. */
export function editedCode(files: readonly FilePatch[]): FglLocation[] {
  const edits: FglLocation[] = [];
  for (const file of files) {
    if (!hasPreImage(file) || file.binary) continue;
    for (const hunk of file.hunks) {
      if (hunk.oldLines === 0) continue;
      const symbol = symbolFromHunkSection(hunk.section)?.name;
      edits.push({
        path: file.oldPath!,
        startLine: hunk.oldStart,
        endLine: hunk.oldStart + hunk.oldLines - 1,
        role: "edit",
        ...(symbol ? { symbol } : {}),
      });
    }
  }
  return mergeLocations(edits);
}

function readsOfCall(
  format: Trajectory["format"],
  name: string,
  args: Record<string, unknown>,
  observation: string | undefined,
  step: number,
  root: string,
): ObservedRead[] {
  switch (format) {
    case "mini-swe-agent-1":
    case "mini-swe-agent-2":
      return name === "bash" && typeof args.command === "string"
        ? shellReads(args.command, observation, step, root)
        : [];
    case "swe-agent":
      return editorReads(name, observation, step, root);
    case "autocoderover":
      return searchReads(name, observation, step);
    default:
      return [];
  }
}

/** Lines for a read: as observed, or from the file at base commit (a `tail`, a code snippet, a symbol). */
async function placeRead(
  read: ObservedRead,
  code: CodeSource | undefined,
): Promise<{ path: string; startLine: number; endLine: number; symbol?: string } | { reason: string }> {
  const symbol = read.symbol !== undefined ? { symbol: read.symbol } : {};
  if (read.startLine !== undefined && read.endLine !== undefined)
    return { path: read.path, startLine: read.startLine, endLine: read.endLine, ...symbol };
  if (code?.kind !== "checkout")
    return { reason: `${read.via}: needs the file at base commit to know its lines (no checkout given)` };
  const file = await code.file(read.path);
  if (!file) return { reason: `${read.via}: ${read.path} does not exist at base commit` };
  const lines = file.lines as readonly string[];
  if (read.fromEnd !== undefined)
    return {
      path: read.path,
      startLine: Math.max(1, lines.length - read.fromEnd + 1),
      endLine: lines.length,
      ...symbol,
    };
  if (read.code !== undefined) {
    const found = findSnippet(lines, read.code);
    if (found) return { path: read.path, ...found, ...symbol };
    return {
      reason: `${read.via}: the code shown for ${read.symbol ?? read.path} is not in ${read.path} at base commit`,
    };
  }
  return { reason: `${read.via}: no lines` };
}

/**
 * Where a snippet's lines are in a file: the first place its first line matches (whitespace at
 * line ends aside) and every later line of the snippet follows in order; lines the snippet
 * skips (AutoCodeRover shows a large class as its signatures) are allowed between them, up to
 * the file's end. The range runs from the first to the last matched line.
 */
export function findSnippet(
  lines: readonly string[],
  snippet: string,
): { startLine: number; endLine: number } | undefined {
  const want = snippet
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "");
  if (want.length === 0) return undefined;
  const have = lines.map((line) => line.trimEnd());
  for (let start = 0; start < have.length; start++) {
    if (have[start] !== want[0]) continue;
    let at = start;
    let matched = 1;
    for (let i = start + 1; i < have.length && matched < want.length; i++) {
      if (have[i] === want[matched]) {
        matched += 1;
        at = i;
      }
    }
    if (matched === want.length) return { startLine: start + 1, endLine: at + 1 };
  }
  return undefined;
}

/** Where the task's repository is in the agent's sandbox: SWE-agent's `/owner__name`, mini-swe-agent's `/testbed`. */
function rootOf(format: Trajectory["format"], repo: string | undefined, instanceId: string): string {
  if (format === "swe-agent")
    return `/${repo !== undefined ? repo.replace("/", "__") : repoKeyFromInstanceId(instanceId)}`;
  return "/testbed";
}
