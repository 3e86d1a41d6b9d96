import { pairedMinimumDetectableEffect, pairedSampleSize } from "@loclab/statistics";
import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";

interface PowerOptions {
  psi: string;
  delta?: string;
  n?: string;
  alpha: string;
  power: string;
  json?: boolean;
}

/**
 * `loclab power`: Connor's (1987) sample size for paired binary outcomes (docs/definitions.md §7):
 * with `--delta D`, the tasks needed to detect a difference D at the given power
 * (`{"n": …}`, rounded up); with `--n N`, the minimum detectable difference (`{"mde": …}`).
 * ψ is the discordant rate (share of tasks where the two systems differ).
 */
export function registerPowerCommand(program: Command): void {
  program
    .command("power")
    .description(summaryOf("power"))
    .requiredOption("--psi <rate>", "discordant rate ψ: the share of tasks where the two systems differ")
    .option("--delta <difference>", "difference in solve rates to detect (gives n)")
    .option("--n <tasks>", "number of tasks (gives the minimum detectable effect)")
    .option("--alpha <alpha>", "two-sided significance level", "0.05")
    .option("--power <power>", "power 1 − β", "0.8")
    .option("--json", "print one JSON object")
    .action((options: PowerOptions) => {
      if ((options.delta === undefined) === (options.n === undefined))
        throw new Error("give exactly one of --delta (to get n) or --n (to get the minimum detectable effect)");
      const psi = numericOption("psi", options.psi, { min: 0, max: 1, exclusiveMin: true });
      const alpha = numericOption("alpha", options.alpha, { min: 0, max: 1, exclusiveMin: true });
      const power = numericOption("power", options.power, { min: 0, max: 1, exclusiveMin: true });
      if (options.delta !== undefined) {
        const delta = numericOption("delta", options.delta, { min: 0, max: 1, exclusiveMin: true });
        const design = pairedSampleSize({ psi, delta, alpha, power });
        if (options.json)
          process.stdout.write(`${JSON.stringify({ n: design.n, nExact: design.nExact, psi, delta, alpha, power })}\n`);
        else
          process.stdout.write(
            `n = ${design.n} tasks (exact ${design.nExact.toFixed(2)}) to detect δ = ${delta} with ψ = ${psi} at α = ${alpha}, power ${power}\n`,
          );
        return;
      }
      const n = numericOption("n", options.n as string, { integer: true, min: 1 });
      const design = pairedMinimumDetectableEffect({ psi, n, alpha, power });
      if (options.json) process.stdout.write(`${JSON.stringify({ mde: design.delta, n, psi, alpha, power })}\n`);
      else
        process.stdout.write(
          `minimum detectable δ = ${design.delta.toFixed(4)} with n = ${n}, ψ = ${psi}, α = ${alpha}, power ${power}\n`,
        );
    });
}
