import { appendFile, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { execInContainer, tarArchive } from "@loclab/docker";
import { END_TEST_OUTPUT } from "@loclab/grading";
import { applyModelPatch, type ApplyResult } from "./apply-patch.js";
import { DEFAULT_EVALUATION_LIMITS, OOM_KILLS_SCRIPT } from "./evaluation-limits.js";
import type { ImageRef } from "./image-ref.js";
import { InfraFailure } from "./infra-failure.js";
import { trackContainer, untrackContainer } from "./live-containers.js";
import { standinsFromLabels } from "./network-standins.js";
import { startStandins } from "./start-standins.js";

export interface RunInstanceInput {
  image: ImageRef;
  instanceId: string;
  runId: string;
  /** The patch to apply; null or "" runs the tests on the base commit (calibration's empty patch). */
  modelPatch: string | null;
  evalScript: string;
  /** The eval script's time limit (the harness's --timeout, default 1800 s). */
  timeoutMs: number;
  /** Memory limit of the container in bytes; DEFAULT_EVALUATION_LIMITS' when absent. */
  memoryBytes?: number;
  /** CPUs as Docker's NanoCpus (the spec's nano_cpus, e.g. pylint's 2 CPUs); DEFAULT_EVALUATION_LIMITS' when absent. */
  nanoCpus?: number;
  /** Processes at once, and the test log's cap; DEFAULT_EVALUATION_LIMITS' when absent. */
  processes?: number;
  logBytes?: number;
  /** Where the test log is written as it comes (test_output.txt); a temporary file when absent. */
  testOutputPath?: string;
  /** Called with the container once it runs (a test kills it from here). */
  onContainer?: (container: Docker.Container) => void;
}

export interface RunInstanceResult {
  apply: ApplyResult | undefined;
  /** test_output.txt: the eval script's output (with the harness's timeout line when cut), at most `logBytes` of it. */
  testOutput: string;
  /** Bytes the eval script printed in all (more than `testOutput` holds when it passed the log limit). */
  testOutputBytes: number;
  diffBefore: string;
  diffAfter: string;
  /** Set when the run says nothing about the patch. */
  infra?: InfraFailure;
  /**
   * The eval script printed past the test log's cap (the patch's doing: the checked logs never
   * come near it): how much, against the cap. The kept head is on disk; nothing is graded.
   */
  logOverLimit?: string;
  /** The network stand-ins started before the eval script (the image's label names them). */
  standins: string[];
  containerName: string;
}

/**
 * One instance in one container, as the harness's `run_instance` does: a container from the
 * instance image with no network (`--network none`) kept alive by `tail -f /dev/null`; the
 * network stand-ins its image names started (network-standins.ts); the patch copied in and
 * applied with the fallbacks; `git diff` logged; /eval.sh run under the time limit; the container and its volumes removed whatever happens. A timeout, an OOM kill
 * or a container that dies under the run is returned as an infrastructure failure.
 */
export async function runInstance(docker: Docker, input: RunInstanceInput): Promise<RunInstanceResult> {
  const name = `loclab-eval.${input.instanceId.toLowerCase()}.${input.runId.replace(/[^a-zA-Z0-9_.-]/g, "_")}.${Math.random().toString(36).slice(2, 8)}`;
  const memoryBytes = input.memoryBytes ?? DEFAULT_EVALUATION_LIMITS.memoryMiB * 2 ** 20;
  const logBytes = input.logBytes ?? DEFAULT_EVALUATION_LIMITS.logBytes;
  const logPath = input.testOutputPath ?? join(tmpdir(), `${name}.test_output.txt`);
  const container = await docker.createContainer({
    name,
    Image: input.image.id,
    Cmd: ["tail", "-f", "/dev/null"],
    User: "root",
    WorkingDir: "/testbed",
    Labels: { "loclab.eval.run": input.runId, "loclab.eval.instance": input.instanceId },
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: "none",
      // Docker's tini as PID 1 reaps what the test suite orphans, so zombies never hold the process limit.
      Init: true,
      PidsLimit: input.processes ?? DEFAULT_EVALUATION_LIMITS.processes,
      Memory: memoryBytes,
      MemorySwap: memoryBytes,
      NanoCpus: input.nanoCpus ?? DEFAULT_EVALUATION_LIMITS.cpus * 1e9,
    },
  });
  trackContainer(container);
  const result: RunInstanceResult = {
    apply: undefined,
    testOutput: "",
    testOutputBytes: 0,
    diffBefore: "",
    diffAfter: "",
    standins: [],
    containerName: name,
  };
  try {
    await container.start();
    input.onContainer?.(container);
    const standins = standinsFromLabels(input.image.labels);
    if (standins) {
      try {
        result.standins = await startStandins(container, standins);
      } catch (error) {
        if (!(error instanceof InfraFailure)) throw error;
        result.infra = error;
        return result;
      }
    }
    const shortLimit = Math.min(input.timeoutMs, 300_000);
    const patch = input.modelPatch ?? "";
    if (patch !== "") {
      await container.putArchive(await tarArchive([{ name: "patch.diff", content: patch }]), { path: "/tmp" });
      result.apply = await applyModelPatch(container, "/tmp/patch.diff", { timeoutMs: shortLimit });
      if (!result.apply.applied) return result;
    }
    result.diffBefore = (
      await execInContainer(container, ["git", "-c", "core.fileMode=false", "diff"], {
        workdir: "/testbed",
        timeoutMs: shortLimit,
      })
    ).output;
    await container.putArchive(await tarArchive([{ name: "eval.sh", content: input.evalScript, mode: 0o755 }]), {
      path: "/",
    });
    // The log goes to disk as it comes (the runner holds none of it), up to its cap.
    const run = await execInContainer(container, ["/bin/bash", "/eval.sh"], {
      timeoutMs: input.timeoutMs,
      keepBytes: 0,
      logFile: { path: logPath, maxBytes: logBytes },
    });
    result.testOutput = await readFile(logPath, "utf8");
    result.testOutputBytes = run.outputBytes;
    if (run.outputBytes > logBytes) {
      result.logOverLimit = `the eval script printed ${run.outputBytes.toLocaleString("en-US")} bytes, over the test log's limit of ${logBytes.toLocaleString("en-US")}: the first ${logBytes.toLocaleString("en-US")} are kept, none graded`;
      return result;
    }
    if (run.timedOut) {
      const line = `\n\nTimeout error: ${Math.round(input.timeoutMs / 1000)} seconds exceeded.`;
      result.testOutput += line;
      await appendFile(logPath, line);
      result.infra = new InfraFailure("timeout", `the eval script ran over ${Math.round(input.timeoutMs / 1000)} s`);
      return result;
    }
    // The eval script has no `set -e`: it always reaches the end marker unless it was killed.
    // The engine may still say "running" for a moment after a kill, so the state is polled.
    const finished = result.testOutput.includes(END_TEST_OUTPUT) && run.exitCode !== null;
    let state = await container.inspect().then(
      (info) => info.State,
      () => undefined,
    );
    for (let tries = 0; !finished && state?.Running && tries < 15; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = await container.inspect().then(
        (info) => info.State,
        () => undefined,
      );
    }
    if (state?.OOMKilled) {
      result.infra = new InfraFailure("oom-killed", "the container ran out of memory and was killed");
      return result;
    }
    // The kernel ends a test process, not the container: its cgroup counts the kills.
    const oomKills = state?.Running
      ? Number(
          (await execInContainer(container, ["/bin/sh", "-c", OOM_KILLS_SCRIPT], { timeoutMs: 30_000 })).output.trim(),
        )
      : 0;
    if (oomKills > 0) {
      result.infra = new InfraFailure(
        "oom-killed",
        `the kernel's OOM killer ended ${oomKills} process${oomKills === 1 ? "" : "es"} of the test run under the memory limit of ${Math.round(memoryBytes / 2 ** 20).toLocaleString("en-US")} MiB`,
      );
      return result;
    }
    if (!state?.Running) {
      result.infra = new InfraFailure(
        "container-killed",
        `the container stopped under the eval script (${state ? `status ${state.Status}, exit ${state.ExitCode}` : "gone"})`,
      );
      return result;
    }
    if (!finished) {
      result.infra = new InfraFailure(
        "eval-error",
        `the eval script ended before its end marker (exit ${run.exitCode ?? "unknown"})`,
      );
      return result;
    }
    result.diffAfter = (
      await execInContainer(container, ["git", "-c", "core.fileMode=false", "diff"], {
        workdir: "/testbed",
        timeoutMs: shortLimit,
      })
    ).output;
    return result;
  } catch (error) {
    // A container that died between two steps makes the next engine call fail: that is the
    // container's death, not a daemon error.
    const state = await container.inspect().then(
      (info) => info.State,
      () => undefined,
    );
    if (state?.Running) throw error;
    result.infra = new InfraFailure(
      state?.OOMKilled ? "oom-killed" : "container-killed",
      `the container stopped (${state ? `status ${state.Status}, exit ${state.ExitCode}` : "gone"}): ${(error as Error).message}`,
    );
    return result;
  } finally {
    if (input.testOutputPath === undefined) await rm(logPath, { force: true });
    untrackContainer(container);
    await container.remove({ force: true, v: true }).catch((error: { statusCode?: number }) => {
      if (error.statusCode !== 404 && error.statusCode !== 409) throw error;
    });
  }
}
