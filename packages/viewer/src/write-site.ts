import { existsSync, statSync } from "node:fs";
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@loclab/schemas";
import type { SiteSource, SiteTrajectory } from "./run-site.js";
import { SITE_ASSETS, dataScript, siteAssetsDir } from "./site-assets.js";
import type { TrajectoryView } from "./site-types.js";
import { buildTrajectoryView } from "./trajectory-view.js";

export interface WriteSiteOptions {
  /** Trajectories made and written at once; default 4. */
  concurrency?: number;
  /** Called after each trajectory file (written or kept), for a progress line. */
  onProgress?: (done: number, total: number) => void;
}

export interface WriteSiteResult {
  out: string;
  /** Trajectory files written, and those kept because they were newer than their source. */
  written: number;
  kept: number;
  /** Trajectories that could not be read: each gets a page saying why, and the summary lists them. */
  failed: number;
  summaryBytes: number;
  ms: number;
}

/**
 * Writes the static site: the page's files, `data/t/<n>.js` per trajectory, then
 * `data/summary.js` last, so that a site opened while it is written never shows rows whose
 * trajectory files are missing. Each file is written to a temporary name and renamed, and a
 * trajectory file newer than its source is kept: a report that was stopped resumes where it
 * was, and a second report of a grown run writes only what changed (`data/sources.json`
 * says which source each file was made from).
 */
export async function writeSite(
  source: SiteSource,
  out: string,
  options: WriteSiteOptions = {},
): Promise<WriteSiteResult> {
  const started = performance.now();
  await mkdir(join(out, "data", "t"), { recursive: true });
  for (const asset of SITE_ASSETS) await copyFile(join(siteAssetsDir(), asset), join(out, asset));
  // Which source each trajectory file was made from: a file is kept only for the same source.
  const sourcesFile = join(out, "data", "sources.json");
  const previous: string[] = existsSync(sourcesFile)
    ? await readFile(sourcesFile, "utf8").then(
        (text) => JSON.parse(text) as string[],
        () => [],
      )
    : [];
  // A file made from another source than this build's is removed before the new list is
  // written, so that a report stopped half-way never keeps a file of the old list.
  for (const trajectory of source.trajectories)
    if (previous[trajectory.id] !== undefined && previous[trajectory.id] !== trajectory.file)
      await rm(join(out, "data", "t", `${trajectory.id}.js`), { force: true });
  await writeFileAtomic(sourcesFile, JSON.stringify(source.trajectories.map((trajectory) => trajectory.file)));
  const queue = [...source.trajectories];
  const total = queue.length;
  let done = 0;
  let written = 0;
  let kept = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const file = join(out, "data", "t", `${next.id}.js`);
      if (isNewer(file, next.file)) kept++;
      else {
        const { view, problem } = await viewOrFailure(next);
        if (problem) {
          failed++;
          source.summary.problems.push(problem);
        }
        await writeFileAtomic(file, dataScript(`t/${next.id}`, view));
        written++;
      }
      options.onProgress?.(++done, total);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  const summaryText = dataScript("summary", source.summary);
  await writeFileAtomic(join(out, "data", "summary.js"), summaryText);
  return { out, written, kept, failed, summaryBytes: Buffer.byteLength(summaryText), ms: performance.now() - started };
}

/**
 * A trajectory's view, or a page that says why it could not be read (the site is made all the
 * same); `problem` names the file and what went wrong, for the summary's list.
 */
export async function viewOrFailure(
  trajectory: SiteTrajectory,
): Promise<{ view: TrajectoryView; problem: string | null }> {
  try {
    return { view: await trajectory.view(), problem: null };
  } catch (error) {
    const problem = `cannot read ${trajectory.file}: ${(error as Error).message}`;
    const view = buildTrajectoryView({
      id: trajectory.id,
      instanceId: "(unreadable)",
      cell: null,
      format: "unknown",
      source: trajectory.file,
      exit: null,
      outcome: null,
      error: problem,
      model: null,
      steps: [],
    });
    return { view, problem };
  }
}

function isNewer(file: string, than: string): boolean {
  if (!existsSync(file)) return false;
  try {
    return statSync(file).mtimeMs >= statSync(than).mtimeMs;
  } catch {
    return false;
  }
}
