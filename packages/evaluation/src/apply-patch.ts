import type Docker from "dockerode";
import { execInContainer } from "@loclab/docker";

/**
 * The harness's ways to apply a model patch, in order; the first that exits 0 wins. Between
 * attempts the tree is put back as the 5.x harness does (v4 leaves a failed `--reject`
 * attempt's hunks in place, so `patch` may then see them as reversed and fail a patch that
 * applies on its own), but more carefully than its `git clean -fd`, which would also delete
 * the untracked files the install made (an editable install's egg-info): tracked files are
 * checked out, and only files that appeared since the first attempt are removed.
 */
export const APPLY_COMMANDS = [
  "git apply --verbose",
  "git apply --verbose --reject",
  "patch --batch --fuzz=5 -p1 -i",
] as const;

export interface ApplyResult {
  applied: boolean;
  /** The command that applied it. */
  command?: string;
  /** Every attempt's output, as the harness logs them. */
  log: string;
}

export async function applyModelPatch(
  container: Docker.Container,
  patchPath: string,
  options: { timeoutMs: number },
): Promise<ApplyResult> {
  let log = "";
  const run = (script: string) =>
    execInContainer(container, ["/bin/bash", "-c", script], {
      workdir: "/testbed",
      user: "root",
      timeoutMs: options.timeoutMs,
    });
  await run("git ls-files -o -z | sort -z > /tmp/loclab-untracked-before");
  for (const [index, command] of APPLY_COMMANDS.entries()) {
    if (index > 0)
      await run(
        "git checkout -- . && git ls-files -o -z | sort -z | comm -z -13 /tmp/loclab-untracked-before - | xargs -0 -r rm -f --",
      );
    const result = await run(`${command} ${patchPath}`);
    log += `$ ${command} ${patchPath}\n${result.output}`;
    if (result.exitCode === 0) return { applied: true, command, log: `${log}>>>>> Applied Patch:\n` };
    log += `Failed to apply patch to container: ${command}\n`;
  }
  return { applied: false, log: `${log}>>>>> Patch Apply Failed:\n` };
}
