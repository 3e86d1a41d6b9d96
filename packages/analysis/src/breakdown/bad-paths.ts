import type { TaskSummary } from "../model/task-summary.js";
import { type BreakdownOptions, DEFAULT_BREAKDOWN_OPTIONS } from "./breakdown-options.js";

/** SWE-agent checks a repository out at /<owner>__<repo> (e.g. /django__django). */
function defaultRoots(instanceId: string, roots: readonly string[]): string[] {
  const repo = /^(.+?)-\d+$/.exec(instanceId)?.[1];
  return repo ? [...roots, `/${repo}`] : [...roots];
}

function underPrefix(path: string, prefix: string): boolean {
  const bare = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  return path === bare || path.startsWith(bare.endsWith("/") ? bare : `${bare}/`);
}

/** The repository-relative form of a path, or undefined when it is outside the repository. */
function relativeToRepository(path: string, roots: readonly string[]): string | undefined {
  let p = path.replace(/\/+$/, "");
  if (p.startsWith("~") || p.includes("..")) return undefined;
  if (p.startsWith("/")) {
    const root = roots.find((r) => p === r || p.startsWith(`${r}/`));
    if (!root) return undefined;
    p = p.slice(root.length + 1);
  }
  while (p.startsWith("./")) p = p.slice(2);
  return p;
}

function folderSet(files: ReadonlySet<string>): Set<string> {
  const folders = new Set<string>();
  for (const file of files) {
    for (let slash = file.indexOf("/"); slash > 0; slash = file.indexOf("/", slash + 1))
      folders.add(file.slice(0, slash));
  }
  return folders;
}

/**
 * The paths of a task that do not exist (the "bad prefix" column, docs/definitions.md §8):
 * - any path under a configured prefix (default /workspace/src/, the FGL harness's
 *   non-existent source root), and
 * - when the repository's file list is known (`repositoryFiles`), any path under a
 *   repository root (/testbed, /workspace, /repo, /<owner>__<repo>, or relative) that is
 *   neither a file nor a folder of the repository and that the task did not create itself
 *   (redirect / tee / touch / mkdir / cp / mv targets, create / write tools).
 * Pure; sorted.
 *
 * @example badPaths({ instanceId: "a__a-1", paths: ["/workspace/src/x.py"], createdPaths: [] } as TaskSummary) // ["/workspace/src/x.py"]
 */
export function badPaths(
  task: Pick<TaskSummary, "instanceId" | "paths" | "createdPaths">,
  options: BreakdownOptions = {},
): string[] {
  const prefixes = options.badPathPrefixes ?? DEFAULT_BREAKDOWN_OPTIONS.badPathPrefixes;
  const bad = new Set<string>();
  for (const path of task.paths) if (prefixes.some((prefix) => underPrefix(path, prefix))) bad.add(path);
  const files = options.repositoryFiles?.(task.instanceId);
  if (files) {
    const roots = defaultRoots(task.instanceId, options.repositoryRoots ?? DEFAULT_BREAKDOWN_OPTIONS.repositoryRoots);
    const folders = folderSet(files);
    const created = new Set<string>();
    for (const path of task.createdPaths) {
      const relative = relativeToRepository(path, roots);
      if (relative !== undefined) created.add(relative);
    }
    for (const path of task.paths) {
      const relative = relativeToRepository(path, roots);
      if (relative === undefined || relative === "" || files.has(relative) || folders.has(relative)) continue;
      // A created file, or anything inside a created folder, exists by the time it is used.
      if ([...created].some((c) => relative === c || relative.startsWith(`${c}/`))) continue;
      bad.add(path);
    }
  }
  return [...bad].sort();
}
