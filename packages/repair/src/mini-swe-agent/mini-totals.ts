import { streamTrajectory, type TrajectoryStep } from "@loclab/analysis";

/** One mini-swe-agent attempt's tokens, read with the analysis package's mini-swe-agent importer. */
export interface MiniTotals {
  steps: number;
  apiCalls: number;
  promptTokens: number;
  completionTokens: number;
  /** Index of the first step whose command writes a file in the repository (`editsFiles`); null when none did. */
  firstEdit: number | null;
  beforeFirstEdit: { promptTokens: number; completionTokens: number; totalTokens: number; apiCalls: number };
  afterFirstEdit: { promptTokens: number; completionTokens: number; totalTokens: number; apiCalls: number };
  /** The steps whose answer was cut at the output limit (`finish_reason` length). */
  cutSteps: number[];
  /** Harness messages that were not tool results (format errors). */
  formatErrors: number;
}

/**
 * Whether a shell command writes a file of the repository, as far as its text shows: `sed -i`,
 * `perl -i`, `patch`, `git apply`, `tee`, a here-document into a file, a Python `open(…, "w")`
 * or `write_text`, or a redirect (`>`, `>>`) into anything but /dev/null, /tmp and mini-swe-agent's
 * own `patch.txt`. A heuristic for SHERLOC's split of tokens (localization = up to the first
 * edit): a shell agent has no edit tool to count.
 */
export function editsFiles(command: string): boolean {
  if (
    /\bsed\s+(-[a-zA-Z]*\s+)*-i|\bperl\s+-[a-zA-Z]*i|\bpatch\s+-|\bgit\s+apply\b|\btee\s+(?!\/dev\/null|\/tmp\/)\S|open\([^)]*["'][wa]\+?["']|\.write_text\(/.test(
      command,
    )
  )
    return true;
  for (const match of command.matchAll(/(?<![0-9&<>])>{1,2}\s*([^\s;&|)]+)/g)) {
    const target = match[1]!.replace(/^["']|["']$/g, "");
    if (target === "/dev/null" || target.startsWith("/tmp/") || target === "patch.txt" || target.startsWith("&"))
      continue;
    return true;
  }
  return false;
}

/** The totals of a mini-swe-agent trajectory file (`attempt-N.traj.json`). */
export async function miniTotals(path: string): Promise<MiniTotals> {
  const steps: TrajectoryStep[] = [];
  const header = await streamTrajectory(path, "mini-swe-agent", (step) => {
    steps.push(step);
  });
  const zero = () => ({ promptTokens: 0, completionTokens: 0, totalTokens: 0, apiCalls: 0 });
  const before = zero();
  const after = zero();
  let firstEdit: number | null = null;
  const cutSteps: number[] = [];
  let formatErrors = 0;
  for (const step of steps) {
    const phase = firstEdit === null ? before : after;
    const prompt = step.usage?.promptTokens ?? 0;
    const completion = step.usage?.completionTokens ?? 0;
    if (step.output !== undefined || step.usage) {
      phase.promptTokens += prompt;
      phase.completionTokens += completion;
      phase.totalTokens += prompt + completion;
      phase.apiCalls += 1;
    }
    if (step.finishReason === "length") cutSteps.push(step.index);
    if (step.error) formatErrors += 1;
    const commands = step.toolCalls.map((call) => String(call.arguments.command ?? ""));
    if (firstEdit === null && commands.some(editsFiles)) firstEdit = step.index;
  }
  return {
    steps: steps.length,
    apiCalls: header.usage?.apiCalls ?? before.apiCalls + after.apiCalls,
    promptTokens: before.promptTokens + after.promptTokens,
    completionTokens: before.completionTokens + after.completionTokens,
    firstEdit,
    beforeFirstEdit: before,
    afterFirstEdit: after,
    cutSteps,
    formatErrors,
  };
}
