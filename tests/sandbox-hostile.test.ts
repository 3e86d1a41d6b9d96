import { spawnSync } from "node:child_process";
import { dirname } from "node:path";
import { connectDocker } from "@loclab/docker";
import {
  ContainerSandbox,
  FGL_SINGLE_AGENT,
  FixerToolbox,
  limitNotes,
  removeLeftoverSandboxes,
  SWEEP_SCRIPT,
} from "@loclab/fixer";
import { MINI_DRIVER, miniSweAgentPython } from "@loclab/repair";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixerTestImage, type FixerTestImage } from "./fixer-image.js";

// The sandbox against what a model does (issue 52), in real containers on the test engine:
// floods, fork bombs, allocations past the memory limit, processes left running, files too
// large to read or to submit. Each case is a command of one sandbox that goes on afterwards,
// and the runner's own memory must not follow what the command printed.
let docker: Docker;
let fixture: FixerTestImage;
const attempt = `hostile-test-${process.pid}`;

beforeAll(async () => {
  ({ docker } = await connectDocker({}));
  fixture = await buildFixerTestImage(docker, "sandbox-hostile");
});

afterAll(async () => {
  await removeLeftoverSandboxes(docker, attempt).catch(() => undefined);
  await fixture?.remove();
});

/** A sandbox and its tools, removed after `body` whatever happens. */
async function withTools(
  limits: Parameters<typeof ContainerSandbox.start>[1]["limits"],
  body: (tools: FixerToolbox, sandbox: ContainerSandbox) => Promise<void>,
  fixer = FGL_SINGLE_AGENT,
) {
  const sandbox = await ContainerSandbox.start(docker, {
    image: fixture.image,
    attempt,
    ...(limits ? { limits } : {}),
  });
  try {
    await body(new FixerToolbox(sandbox, fixer), sandbox);
  } finally {
    await sandbox.remove();
  }
}

const command = (tools: FixerToolbox, text: string) => tools.call("run_command", JSON.stringify({ command: text }));

describe("the sandbox holds against hostile commands", () => {
  it("sees its limits in its own cgroup files: processes, memory (no swap beyond), a CPU quota", async () => {
    await withTools({ processes: 512, memoryMiB: 1024, cpus: 1.5 }, async (_, sandbox) => {
      const files = await sandbox.run(
        "cat /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us 2>/dev/null || cat /sys/fs/cgroup/pids.max /sys/fs/cgroup/memory.max /sys/fs/cgroup/cpu.max",
        { timeoutMs: 30_000 },
      );
      const values = files.stdout.trim().split(/\s+/);
      // cgroup v1 (memsw only with swap accounting) or v2.
      expect(values[0]).toBe("512");
      expect(values[1]).toBe(String(1024 * 2 ** 20));
      expect(values.slice(-2)).toEqual(["150000", "100000"]);
    });
  });

  it("an output flood of 1.5 GB: the model sees the head and the count, the runner keeps 64 KiB, the next command runs", async () => {
    await withTools(undefined, async (tools) => {
      const before = process.memoryUsage().rss;
      const flood = await command(tools, "yes loclab-flood | head -c 1500000000; echo done >&2");
      const grown = process.memoryUsage().rss - before;
      expect(flood.command).toMatchObject({ exitCode: 0, stdoutDroppedBytes: 1_500_000_000 - 64 * 1024 });
      expect(flood.content).toMatch(/^exit code 0\nstdout:\n(loclab-flood\n)+/);
      expect(flood.content).toContain("more bytes not kept]");
      expect(flood.content).toContain("1,499,934,464 more bytes not kept");
      expect(flood.content).toMatch(/stderr:\ndone\n$/);
      // What the runner holds does not follow the flood (1.5 GB would be ≥ 3 GB as a string).
      expect(grown).toBeLessThan(256 * 2 ** 20);
      expect((await command(tools, "echo after")).content).toBe("exit code 0\nstdout:\nafter\n\nstderr:\n(empty)");
    });
  });

  it("a command that prints for its whole time limit is killed there, and says how much it printed", async () => {
    await withTools(
      undefined,
      async (tools) => {
        const endless = await command(tools, "yes");
        expect(endless.command).toMatchObject({ timedOut: true, exitCode: null });
        expect(endless.command?.stdoutDroppedBytes).toBeGreaterThan(0);
        expect(endless.content).toMatch(/^timed out after 3 s/);
      },
      { ...FGL_SINGLE_AGENT, commandTimeoutMs: 3_000 },
    );
  });

  it("a fork bomb stops at the process limit, is ended after its command, and the sandbox goes on", async () => {
    await withTools({ processes: 256 }, async (tools, sandbox) => {
      const bomb = await command(tools, "bomb() { bomb | bomb & }; bomb; sleep 5");
      expect(bomb.content).toMatch(/fork failed: process limit 256 \([\d,]+ forks? refused\)/);
      expect(bomb.command?.forksRefused).toBeGreaterThan(0);
      const after = await sandbox.run("ls -d /proc/[0-9]* | wc -l", { timeoutMs: 30_000 });
      // init, the keeper, this shell's timeout, bash, ls and wc: nothing of the bomb is left.
      expect(Number(after.stdout.trim())).toBeLessThan(10);
      expect((await command(tools, "echo alive")).content).toContain("stdout:\nalive\n");
    });
  });

  it("an allocation past the memory limit is ended by the kernel, the observation names the limit, the sandbox goes on", async () => {
    await withTools({ memoryMiB: 256 }, async (tools) => {
      const big = await command(tools, "python3 -c \"b = b'x' * (1 << 30); print(len(b))\"");
      expect(big.command).toMatchObject({ exitCode: 137, memoryKills: 1 });
      expect(big.content).toMatch(
        /^exit code 137\nkilled: memory limit 256 MiB \(the kernel ended 1 process of this command\)/,
      );
      expect((await command(tools, "python3 -c 'print(2 + 3)'")).content).toContain("stdout:\n5\n");
    });
  });

  it("a detached CPU burner and a server left in the background are ended after their command and named", async () => {
    await withTools(undefined, async (tools, sandbox) => {
      const detached = await command(
        tools,
        "setsid bash -c 'while :; do :; done' > /dev/null 2>&1 & python3 -m http.server 8000 > /dev/null 2>&1 & sleep 1; echo started",
      );
      expect(detached.content).toMatch(
        /ended after the command: \d+ process(es)? it left running \(.*`python3 -m http\.server 8000`/,
      );
      expect(detached.content).toContain("bash -c while :; do :; done");
      expect(detached.command?.leftoverProcesses).toBeGreaterThanOrEqual(2);
      const left = await sandbox.run(
        "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c -e 'while [:]' -e 'http[.]server' || true",
        { timeoutMs: 30_000 },
      );
      expect(left.stdout.trim()).toBe("0");
    });
  });

  it("read_file on a 2 GB file reads its window only, with the file's line count", async () => {
    await withTools(undefined, async (tools) => {
      // 2,000,000,000 bytes of 20-byte lines: 100,000,000 lines.
      const made = await command(tools, "yes 'a line of 19 chars.' | head -c 2000000000 > big.txt; wc -c < big.txt");
      expect(made.content).toContain("stdout:\n2000000000\n");
      const before = process.memoryUsage().rss;
      const read = await tools.call("read_file", JSON.stringify({ path: "big.txt", start_line: 99_999_999 }));
      expect(read.content).toBe(
        "big.txt: lines 99999999-100000000 of 100000000\na line of 19 chars.\na line of 19 chars.\n",
      );
      const first = await tools.call("read_file", JSON.stringify({ path: "big.txt" }));
      expect(first.read).toMatchObject({ startLine: 1, endLine: 150, totalLines: 100_000_000, cut: "lines" });
      expect(process.memoryUsage().rss - before).toBeLessThan(256 * 2 ** 20);
      // edit_file reads whole files only up to its size: a named error, not 2 GB in the runner.
      const edit = await tools.call("edit_file", JSON.stringify({ path: "big.txt", old_text: "a", new_text: "b" }));
      expect(edit).toMatchObject({ error: "file-too-large" });
      expect(edit.content).toMatch(/^big\.txt is 2,000,000,000 bytes, over the 4,194,304 this tool reads whole/);
      await command(tools, "rm big.txt");
    });
  });

  it("a 300 MB binary file left in the repository is never diffed: get_status warns, submit_patch hands in nothing", async () => {
    await withTools(undefined, async (tools) => {
      await command(tools, "head -c 300000000 /dev/urandom > model.bin; echo 'fix' >> README.md");
      const status = await tools.call("get_status", "{}");
      expect(status.content).toBe(
        "Your changes cannot be submitted as they are: the changes hold binary files over the limit of 1,048,576 bytes: model.bin (300,000,000 bytes). Remove what should not be in the patch.",
      );
      const submitted = await tools.call("submit_patch", "{}");
      expect(submitted.patch).toBe("");
      expect(submitted.patchOverLimit).toEqual({
        bytes: null,
        oversized: [{ path: "model.bin", bytes: 300_000_000 }],
        note: "the changes hold binary files over the limit of 1,048,576 bytes: model.bin (300,000,000 bytes)",
      });
      // Removed, the rest is a patch again.
      await command(tools, "rm model.bin");
      const again = await tools.call("submit_patch", "{}");
      expect(again.patch).toContain("+fix");
      expect(again.patchOverLimit).toBeUndefined();
    });
  });

  it("a text diff over the patch limit is not kept: its size is said instead", async () => {
    await withTools(undefined, async (tools) => {
      await command(tools, "yes 'generated line' | head -c 3000000 > generated.txt");
      const submitted = await tools.call("submit_patch", "{}");
      expect(submitted.patch).toBe("");
      expect(submitted.patchOverLimit?.oversized).toEqual([]);
      expect(submitted.patchOverLimit?.bytes).toBeGreaterThan(3_000_000);
      expect(submitted.patchOverLimit?.note).toMatch(
        /^the diff is [\d,]+ bytes, over the patch limit of 2,097,152 bytes$/,
      );
    });
  });

  it("a disk filler is killed once the writable layer passes the disk limit, and the observation says the attempt ends", async () => {
    await withTools({ diskMiB: 256 }, async (tools, sandbox) => {
      // Under the limit: nothing said.
      const small = await command(tools, "head -c 100000000 /dev/zero > small.bin && echo written");
      expect(small.command?.diskBytes).toBeUndefined();
      expect(small.content).not.toContain("disk limit");
      // A filler that never stops by itself (its own limit is FGL's 120 s).
      const filler = await command(tools, "while :; do head -c 16777216 /dev/zero >> fill.bin; done");
      expect(filler.command).toMatchObject({ timedOut: false, cancelled: false });
      expect(filler.command?.diskBytes).toBeGreaterThan(256 * 2 ** 20);
      expect(filler.content).toMatch(
        /^exit code 137\nkilled: disk limit 256 MiB \(the container's writable layer holds [\d,]+ MiB\); the attempt ends here/,
      );
      // What it wrote is what the engine says the layer holds (the filler is no longer writing).
      const sizes = await sandbox.run("stat -c %s fill.bin small.bin", { timeoutMs: 30_000 });
      const written = sizes.stdout.trim().split("\n").map(Number);
      expect(written[0]! + written[1]!).toBeGreaterThan(256 * 2 ** 20);
      expect(written[0]! + written[1]!).toBeLessThanOrEqual(filler.command!.diskBytes! + 2 ** 20);
    });
  });

  it("mini-swe-agent's driver: the same flood costs its process the cap, and its observations name the limits as the fixer's do", async () => {
    await withTools({ processes: 256, memoryMiB: 256 }, async (_, sandbox) => {
      // The driver's environment class on this container, one action per line of the script's input.
      const script = `
import json, resource, sys
sys.path.insert(0, ${JSON.stringify(dirname(MINI_DRIVER))})
from loclab_mini import LoclabContainer
job = json.loads(sys.stdin.read())
env = LoclabContainer(container_id=job["container"], image="unused", cwd="/testbed", timeout=60,
                      interpreter=["bash", "-c"], sandbox=job["sandbox"])
for command in job["commands"]:
    out = env.execute({"command": command})
    print(json.dumps({"output": out["output"][-600:], "head": out["output"][:30], "returncode": out["returncode"], "extra": out["extra"]}))
print(json.dumps({"maxrssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
`;
      const job = {
        container: sandbox.container.id,
        sandbox: {
          sweepScript: SWEEP_SCRIPT,
          keeper: sandbox.keeperPid,
          keepBytes: sandbox.limits.keepBytes,
          memoryMiB: 256,
          processes: 256,
        },
        commands: [
          "yes loclab-flood | head -c 1500000000",
          "python3 -c \"b = b'x' * (1 << 30)\"",
          "python3 -m http.server 8001 > /dev/null 2>&1 & sleep 1; echo served",
        ],
      };
      const run = spawnSync(miniSweAgentPython(), ["-c", script], {
        input: JSON.stringify(job),
        encoding: "utf8",
        env: { ...process.env },
        maxBuffer: 16 * 2 ** 20,
      });
      expect(run.status, run.stderr).toBe(0);
      const [flood, memory, served, usage] = run.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
      expect(flood.head).toBe("loclab-flood\nloclab-flood\nlocl");
      expect(flood.extra.loclab).toMatchObject({
        outputBytes: 1_500_000_000,
        droppedBytes: 1_500_000_000 - 2 * 65_536,
      });
      expect(flood.output).toContain("loclab-flood\n");
      // The driver's own memory: the two kept ends, not the flood.
      expect(usage.maxrssKiB).toBeLessThan(256 * 1024);
      const [memoryNote] = limitNotes({ memory: 1, processes: 0, cpuThrottledUs: 0 }, sandbox.limits);
      expect(memory.returncode).toBe(137);
      expect(memory.output).toContain(memoryNote);
      expect(served.output).toMatch(
        /served\n\nended after the command: 1 process it left running \(`python3 -m http\.server 8001`\); every command starts with none$/,
      );
    });
  });
});
