import { connectDocker } from "@loclab/docker";
import {
  ContainerSandbox,
  FGL_SINGLE_AGENT,
  FixerToolbox,
  removeLeftoverSandboxes,
  SandboxStartError,
} from "@loclab/fixer";
import type Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixerTestImage, type FixerTestImage } from "./fixer-image.js";

// The fixer's sandbox and tools in a real container on the test engine: an image of the
// evaluation's bookworm base with a small repository at /testbed, no network. Every tool's
// rules against real files, commands killed with their children, the diff as `git apply`
// takes it, and no container left behind.
let docker: Docker;
let fixture: FixerTestImage;
let image: string;
const attempt = `fixer-test-${process.pid}`;

beforeAll(async () => {
  ({ docker } = await connectDocker({}));
  fixture = await buildFixerTestImage(docker, "fixer-sandbox");
  image = fixture.image;
});

afterAll(async () => {
  await removeLeftoverSandboxes(docker, attempt).catch(() => undefined);
  await fixture?.remove();
});

const running = async (sandbox: ContainerSandbox, pattern: string) =>
  (
    await sandbox.run(
      `for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done | grep -c '${pattern}' || true`,
      {
        timeoutMs: 30_000,
      },
    )
  ).stdout.trim();

describe("the fixer's container sandbox", () => {
  it("starts only where there is a repository, and an image that is missing is a start error; nothing is left", async () => {
    // /tmp is there, and holds no repository.
    await expect(ContainerSandbox.start(docker, { image, attempt, workdir: "/tmp" })).rejects.toThrow(
      /no git repository at \/tmp/,
    );
    await expect(
      ContainerSandbox.start(docker, { image: "loclab-test/no-such-image:none", attempt }),
    ).rejects.toBeInstanceOf(SandboxStartError);
    expect(await docker.listContainers({ all: true, filters: { label: [`loclab.fixer=${attempt}`] } })).toEqual([]);
  });

  it("run_command: exit code, stdout and stderr apart, each cut at its cap; no network", async () => {
    const sandbox = await ContainerSandbox.start(docker, { image, attempt });
    try {
      const tools = new FixerToolbox(sandbox, FGL_SINGLE_AGENT);
      const result = await tools.call(
        "run_command",
        JSON.stringify({
          command: "python3 -c \"import sys; print('o' * 6000); print('err', file=sys.stderr)\"; exit 3",
        }),
      );
      expect(result.command).toMatchObject({ exitCode: 3, timedOut: false, stdoutOmitted: 1001, stderrOmitted: 0 });
      expect(result.content).toMatch(/^exit code 3\nstdout:\no{5000}\n\[… 1001 more characters cut\]\nstderr:\nerr\n$/);
      const net = await tools.call(
        "run_command",
        JSON.stringify({ command: "cat /sys/class/net/*/operstate; ls /sys/class/net" }),
      );
      expect(net.content).toMatch(/stdout:\n(unknown\n)?lo\n/);
    } finally {
      await sandbox.remove();
    }
  });

  it("a command past its limit is killed with its children; the supervisor's signal kills a running one", async () => {
    const sandbox = await ContainerSandbox.start(docker, { image, attempt });
    try {
      const timed = await sandbox.run("sleep 311 & sleep 312; echo never", { timeoutMs: 1_500 });
      expect(timed).toMatchObject({ timedOut: true, cancelled: false, exitCode: null });
      expect(timed.stdout).not.toContain("never");
      // Neither sleep is left (the pattern does not match its own command line).
      expect(await running(sandbox, "sleep 31[12]")).toBe("0");
      const controller = new AbortController();
      const pending = sandbox.run("bash -c 'sleep 313' & sleep 314", { timeoutMs: 300_000, signal: controller.signal });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      controller.abort();
      const cancelled = await pending;
      expect(cancelled).toMatchObject({ cancelled: true, timedOut: false, exitCode: null });
      expect(await running(sandbox, "sleep 31[34]")).toBe("0");
    } finally {
      await sandbox.remove();
    }
  });

  it("read_file, edit_file, write_file: ranges, named errors, and a diff that git apply takes on a fresh container", async () => {
    const sandbox = await ContainerSandbox.start(docker, { image, attempt });
    const fresh = await ContainerSandbox.start(docker, { image, attempt });
    try {
      const tools = new FixerToolbox(sandbox, FGL_SINGLE_AGENT);
      const call = (tool: string, args: unknown) => tools.call(tool, JSON.stringify(args));
      expect((await call("read_file", { path: "calc/ops.py", start_line: 5 })).content).toBe(
        "calc/ops.py: lines 5-6 of 6\ndef sub(a, b):\n    return a - b\n",
      );
      expect(await call("read_file", { path: "calc/missing.py" })).toMatchObject({
        error: "no-such-file",
        content: "No such file or directory: calc/missing.py",
      });
      expect((await call("read_file", { path: "calc" })).error).toBe("not-a-file");
      expect((await call("read_file", { path: "blob.bin" })).error).toBe("binary-file");
      expect(await call("read_file", { path: "calc/ops.py", start_line: 9 })).toMatchObject({ error: "read-range" });
      expect(
        await call("edit_file", { path: "calc/ops.py", old_text: "    return a - b", new_text: "x" }),
      ).toMatchObject({
        error: "edit-ambiguous",
        content:
          "calc/ops.py: old_text occurs 2 times (at lines 2, 6): include enough surrounding lines to make it unique",
      });
      expect((await call("edit_file", { path: "calc/ops.py", old_text: "return a-b", new_text: "x" })).error).toBe(
        "edit-absent",
      );
      const edited = await call("edit_file", {
        path: "calc/ops.py",
        old_text: "def add(a, b):\n    return a - b",
        new_text: "def add(a, b):\n    return a + b",
      });
      expect(edited).toMatchObject({ content: "Edited calc/ops.py at line 1: 2 line(s) replaced by 2." });
      expect(edited.error).toBeUndefined();
      await call("write_file", { path: "tests/new/test_add.py", content: "from calc.ops import add\n" });
      // Malformed arguments are answered, and counted.
      expect(await tools.call("read_file", "{not json")).toMatchObject({ error: "bad-arguments", counted: true });
      expect(await call("read_file", { file: "x" })).toMatchObject({ error: "bad-arguments" });
      expect(await call("bash", { command: "ls" })).toMatchObject({ error: "unknown-tool", counted: false });
      expect(tools.callsUsed).toBe(11);
      const status = await call("get_status", {});
      expect(status.counted).toBe(false);
      expect(status.content).toContain("+    return a + b");
      expect(status.content).toContain("new file mode");
      // The repository's own index is untouched: the changes are unstaged, the new file untracked.
      expect((await sandbox.run("git status --porcelain", { timeoutMs: 30_000 })).stdout).toBe(
        " M calc/ops.py\n?? tests/\n",
      );
      const submitted = await call("submit_patch", {});
      expect(submitted.patch).toBe(status.content);
      await fresh.writeFile("/tmp/patch.diff", submitted.patch!);
      const applied = await fresh.run(
        "git apply -v /tmp/patch.diff && python3 -c 'from calc.ops import add; print(add(2, 3))'",
        {
          timeoutMs: 30_000,
        },
      );
      expect([applied.exitCode, applied.stdout]).toEqual([0, "5\n"]);
    } finally {
      await sandbox.remove();
      await fresh.remove();
    }
  });

  it("the call budget: a note when 10 or fewer remain, then counted calls refused while uncounted ones still answer", async () => {
    const sandbox = await ContainerSandbox.start(docker, { image, attempt });
    try {
      const tools = new FixerToolbox(sandbox, { ...FGL_SINGLE_AGENT, callBudget: 20 });
      const read = () => tools.call("read_file", JSON.stringify({ path: "README.md" }));
      for (let call = 0; call < 9; call += 1) expect((await read()).content).not.toContain("[budget");
      expect((await read()).content).toBe(
        "README.md: lines 1-1 of 1\ncalc\n\n\n[budget: 10 tool calls left of 20; submit_patch when the fix is in]",
      );
      for (let call = 0; call < 10; call += 1) await read();
      expect(tools.callsLeft).toBe(0);
      expect(await read()).toMatchObject({ error: "budget-exhausted", counted: false });
      expect((await tools.call("get_status", "{}")).content).toBe("No changes yet.");
    } finally {
      await sandbox.remove();
    }
  });

  it("leftovers of a killed run are found by their label and removed", async () => {
    await ContainerSandbox.start(docker, { image, attempt });
    await ContainerSandbox.start(docker, { image, attempt });
    expect(await removeLeftoverSandboxes(docker, attempt)).toBe(2);
    expect(await docker.listContainers({ all: true, filters: { label: [`loclab.fixer=${attempt}`] } })).toEqual([]);
  });
});
