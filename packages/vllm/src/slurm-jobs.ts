import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";

/** Where the Slurm commands are and which cluster they talk to (SLURM_CONF from the environment by default). */
export interface SlurmCommandOptions {
  /** Folder of `sbatch`, `squeue`, `scontrol`, `scancel`; default PATH. */
  binDir?: string;
  /** The environment of the commands; default `process.env` (SLURM_CONF, a munge socket, …). */
  env?: NodeJS.ProcessEnv;
}

/** One task of a job (one server): Slurm's state and, once it runs, its node. */
export interface SlurmTask {
  /** `JOBID` or `JOBID_TASK` for an array. */
  id: string;
  /** The array task's index (0 for a single job). */
  index: number;
  /** PENDING, CONFIGURING, RUNNING, COMPLETING, COMPLETED, CANCELLED, FAILED, TIMEOUT, … */
  state: string;
  /** The node it runs on, once it runs. */
  node?: string;
  /** Why it waits (squeue's reason), when pending. */
  reason?: string;
}

const ENDED = new Set([
  "COMPLETED",
  "CANCELLED",
  "FAILED",
  "TIMEOUT",
  "NODE_FAIL",
  "PREEMPTED",
  "OUT_OF_MEMORY",
  "BOOT_FAIL",
  "DEADLINE",
]);

/** A task that will not serve any more. */
export function slurmTaskEnded(task: SlurmTask): boolean {
  return ENDED.has(task.state.split(" ")[0] ?? "");
}

function command(name: string, options: SlurmCommandOptions): string {
  return options.binDir ? join(options.binDir, name) : name;
}

async function slurm(name: string, args: string[], options: SlurmCommandOptions): Promise<string> {
  const result = await execa(command(name, options), args, {
    env: options.env ?? process.env,
    extendEnv: false,
    reject: false,
  });
  if (result.failed || result.exitCode !== 0) {
    const why = (result.stderr || result.stdout || String(result.cause ?? "")).trim();
    throw new Error(`${name} ${args.join(" ")}: ${why || `exit code ${result.exitCode}`}`);
  }
  return result.stdout;
}

/** Writes the script to `dir/name.sbatch` and submits it with `sbatch --parsable` (run in `dir`); the job id. */
export async function submitSbatch(
  script: string,
  options: SlurmCommandOptions & { dir: string; name?: string },
): Promise<{ jobId: string; scriptPath: string }> {
  const scriptPath = join(options.dir, `${options.name ?? "loclab-vllm"}.sbatch`);
  await writeFile(scriptPath, script, { mode: 0o755 });
  const out = await slurm("sbatch", ["--parsable", "--chdir", options.dir, scriptPath], options);
  // `--parsable`: "JOBID" or "JOBID;CLUSTER".
  const jobId = out.trim().split(";")[0] ?? "";
  if (!/^\d+$/.test(jobId)) throw new Error(`sbatch --parsable answered "${out.trim()}", not a job id`);
  return { jobId, scriptPath };
}

/**
 * The job's tasks as `squeue` sees them (`-r`: one line per array task), and once a task has
 * left the queue, as `scontrol show job` remembers it (for MinJobAge, 300 s by default).
 */
export async function slurmTasks(jobId: string, options: SlurmCommandOptions = {}): Promise<SlurmTask[]> {
  const out = await slurm("squeue", ["-h", "-r", "-j", jobId, "-o", "%i|%T|%N|%r"], options).catch(() => "");
  const tasks = out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [id = "", state = "", node = "", reason = ""] = line.split("|");
      return {
        id,
        index: Number(id.split("_")[1] ?? 0),
        state,
        ...(node && node !== "(null)" ? { node } : {}),
        ...(reason && reason !== "None" ? { reason } : {}),
      };
    });
  if (tasks.length > 0) return tasks;
  // Gone from the queue: its end state from scontrol (one record per array task).
  const shown = await slurm("scontrol", ["-o", "show", "job", jobId], options).catch(() => "");
  return shown
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const field = (name: string) => new RegExp(`(?:^|\\s)${name}=(\\S+)`).exec(line)?.[1];
      const index = Number(field("ArrayTaskId") ?? 0);
      const node = field("NodeList");
      return {
        id: field("ArrayTaskId") ? `${field("ArrayJobId")}_${index}` : (field("JobId") ?? jobId),
        index,
        state: field("JobState") ?? "UNKNOWN",
        ...(node && node !== "(null)" ? { node } : {}),
      };
    });
}

/** `scancel JOBID` (every task of an array). */
export async function cancelSlurmJob(jobId: string, options: SlurmCommandOptions = {}): Promise<void> {
  await slurm("scancel", [jobId], options);
}
