/**
 * After every command, the sandbox is swept (docs/definitions.md §9, "sandbox limits"): every
 * process of the container but its init (PID 1, Docker's tini, which reaps what is killed) and
 * the keeper it runs (`sleep infinity`) is killed, as if each command had its own fresh shell;
 * what was still running is named in the command's observation. The same pass reads the
 * container's cgroup counters, so that a command stopped by a limit says which one.
 *
 * One bash script in one `docker exec`, builtins only (no subshell, no `ps`: a minimal image
 * has none), so it lists nothing of its own. It prints at most a few short lines whatever the
 * container holds: the counters, how many processes were left, the first five commands (each
 * cut to 200 characters). Rounds repeat until nothing is left, so a fork bomb that forks while
 * being killed is ended too (the process limit bounds each round).
 */
export const SWEEP_SCRIPT = `
keeper="$1"; me=$$
counter() { local file="$1" key="$2" k v; [ -r "$file" ] || return 0
  while read -r k v; do [ "$k" = "$key" ] && { echo "$3 $v"; return 0; }; done < "$file"; }
counter /sys/fs/cgroup/memory/memory.oom_control oom_kill memory
counter /sys/fs/cgroup/memory.events oom_kill memory
counter /sys/fs/cgroup/pids/pids.events max processes
counter /sys/fs/cgroup/pids.events max processes
counter /sys/fs/cgroup/cpu/cpu.stat throttled_time cpu-ns
counter /sys/fs/cgroup/cpu.stat throttled_usec cpu-us
alive() { local k v; while read -r k v; do [ "$k" = State: ] && { [ "\${v:0:1}" != Z ]; return; }; done 2>/dev/null < "/proc/$1/status"; return 1; }
left=0
for round in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
  pids=()
  for d in /proc/[0-9]*; do p="\${d#/proc/}"
    [ "$p" = 1 ] || [ "$p" = "$me" ] || [ "$p" = "$keeper" ] && continue
    alive "$p" && pids+=("$p")
  done
  [ "\${#pids[@]}" -eq 0 ] && break
  if [ "$round" = 1 ]; then left="\${#pids[@]}"
    for p in "\${pids[@]:0:5}"; do args=(); mapfile -d '' args 2>/dev/null < "/proc/$p/cmdline"
      line="\${args[*]}"; [ -n "$line" ] && echo "command \${line:0:200}"; done
  fi
  kill -KILL "\${pids[@]}" 2>/dev/null
done
echo "left $left"
echo "rounds $round"
`;

/** The container's cgroup counters: OOM kills, refused forks, CPU throttling (µs). */
export interface SandboxCounters {
  memory: number;
  processes: number;
  cpuThrottledUs: number;
}

/** One sweep's reading: the counters, and what the command left running (now killed). */
export interface SweepReading {
  counters: SandboxCounters;
  /** Processes the command left running. */
  left: number;
  /** The first of them, as their command lines (at most five). */
  commands: string[];
}

/** The sweep script's output read back; unknown lines are ignored (a future kernel's). */
export function parseSweep(text: string): SweepReading {
  const counters: SandboxCounters = { memory: 0, processes: 0, cpuThrottledUs: 0 };
  const commands: string[] = [];
  let left = 0;
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    if (space < 0) continue;
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    const number = Number(value);
    if (key === "command") commands.push(value);
    else if (!Number.isFinite(number)) continue;
    else if (key === "memory") counters.memory = number;
    else if (key === "processes") counters.processes = number;
    else if (key === "cpu-ns") counters.cpuThrottledUs = Math.round(number / 1000);
    else if (key === "cpu-us") counters.cpuThrottledUs = number;
    else if (key === "left") left = number;
  }
  return { counters, left, commands };
}

/** What a command cost against the limits: the counters' growth over it. */
export function countersSince(before: SandboxCounters, after: SandboxCounters): SandboxCounters {
  return {
    memory: Math.max(0, after.memory - before.memory),
    processes: Math.max(0, after.processes - before.processes),
    cpuThrottledUs: Math.max(0, after.cpuThrottledUs - before.cpuThrottledUs),
  };
}
