import { readdirSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { autoCodeRoverInstanceId } from "../formats/autocoderover.js";
import { listSherlocLines } from "../formats/sherloc.js";
import type { RunFormat } from "./read-trajectory.js";
import { statOrUndefined } from "./stat-or-undefined.js";

/** One trajectory of a run folder, before it is read. */
export interface TrajectoryEntry {
  /** The file, or AutoCodeRover's instance folder. */
  path: string;
  /** The instance id its name gives (the file may still say otherwise). */
  instanceId: string;
  /** Bytes on disk (for AutoCodeRover the folder's files). */
  bytes: number;
}

/** How deep below a run folder trajectories are looked for. */
const MAX_DEPTH = 4;

const FILE_PATTERNS: Record<Exclude<RunFormat, "autocoderover" | "sherloc">, RegExp> = {
  loclab: /\.traj\.jsonl$/,
  "mini-swe-agent": /\.traj\.json$/,
  "swe-agent": /\.traj$/,
};

/**
 * The trajectories of a run folder, sorted by name then path: loclab `<id>.traj.jsonl`, mini-swe-agent
 * `<id>.traj.json` (as in `<id>/<id>.traj.json`), SWE-agent `<id>.traj`, AutoCodeRover
 * instance folders (those holding tool_call_sequence.json or a conversation_round_N.json),
 * up to 4 levels down; for SHERLOC, the lines of a generation JSONL (`dir` may be the file).
 *
 * Errors: the folder cannot be read.
 */
export async function listTrajectories(dir: string, format: RunFormat): Promise<TrajectoryEntry[]> {
  if (format === "sherloc") {
    try {
      return listSherlocLines(dir);
    } catch (error) {
      throw new Error(
        `cannot read SHERLOC run ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  const found: TrajectoryEntry[] = [];
  // Synchronous: a run folder holds thousands of files, and each awaited stat was a round trip
  // through the thread pool that left the process idle (issue 18's trajectory profile).
  const walk = (folder: string, depth: number): void => {
    const entries = readdirSync(folder, { withFileTypes: true });
    if (
      format === "autocoderover" &&
      entries.some(
        (e) =>
          !e.isDirectory() && (e.name === "tool_call_sequence.json" || /^conversation_round_\d+\.json$/.test(e.name)),
      )
    ) {
      let bytes = 0;
      for (const e of entries) if (!e.isDirectory()) bytes += statOrUndefined(join(folder, e.name))?.size ?? 0;
      found.push({ path: folder, instanceId: autoCodeRoverInstanceId(folder), bytes });
      return;
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      // A symbolic link counts as what it points to (a run assembled from links); depth bounds cycles.
      const target = entry.isSymbolicLink() ? statOrUndefined(path) : entry;
      if (!target) continue;
      if (target.isDirectory()) {
        if (depth < MAX_DEPTH) walk(path, depth + 1);
      } else if (
        target.isFile() &&
        format !== "autocoderover" &&
        FILE_PATTERNS[format as keyof typeof FILE_PATTERNS].test(entry.name)
      ) {
        found.push({
          path,
          instanceId: basename(entry.name).replace(FILE_PATTERNS[format], ""),
          bytes: statSync(path).size,
        });
      }
    }
  };
  try {
    walk(dir, 0);
  } catch (error) {
    throw new Error(
      `cannot read run folder ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  // By file or folder name, then path: an AutoCodeRover instance's later timestamp sorts last.
  const key = (entry: TrajectoryEntry) => `${basename(entry.path)}\u0000${entry.path}`;
  return found.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
