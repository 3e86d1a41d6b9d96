/**
 * The limits of every evaluation container (docs/definitions.md §9, "sandbox limits"): the
 * repository's own test suite runs there, and it can hang, fork or flood too. The harness sets
 * none; loclab sets these by default, sized for one test run on a shared machine.
 */
export interface EvaluationLimits {
  /** Processes and threads at once (pids.max). */
  processes: number;
  /** Memory in MiB, swap included; a spec's or the caller's own memory limit replaces it. */
  memoryMiB: number;
  /** CPUs (a CFS quota); a harness spec's `nano_cpus` (pylint's 2) replaces it. */
  cpus: number;
  /**
   * The test log (test_output.txt) is written to disk as it comes, up to this many bytes; a log
   * that passes it is not graded (the verdict `log-over-limit`). The checked official
   * logs are far below it.
   */
  logBytes: number;
}

export const DEFAULT_EVALUATION_LIMITS: EvaluationLimits = {
  processes: 4096,
  memoryMiB: 8192,
  cpus: 2,
  logBytes: 128 * 2 ** 20,
};

/**
 * OOM kills the container's cgroup has counted (v1's memory.oom_control, v2's memory.events):
 * read after the eval script, since the kernel ends a test process, not the container.
 */
export const OOM_KILLS_SCRIPT = `for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events; do
  [ -r "$f" ] && while read -r k v; do [ "$k" = oom_kill ] && { echo "$v"; exit 0; }; done < "$f"
done; echo 0`;
