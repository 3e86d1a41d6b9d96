import { exactMcNemar } from "@loclab/statistics";
import type { Command } from "commander";
import { numericOption } from "../numeric-option.js";
import { summaryOf } from "../command-summaries.js";

/**
 * `loclab mcnemar --b B --c C`: the exact McNemar test (docs/definitions.md §7) from the discordant
 * counts: b = tasks only A solved, c = tasks only B solved. `--json` prints
 * `{"b", "c", "p", "midP"}`.
 */
export function registerMcNemarCommand(program: Command): void {
  program
    .command("mcnemar")
    .description(summaryOf("mcnemar"))
    .requiredOption("--b <count>", "tasks solved by A only")
    .requiredOption("--c <count>", "tasks solved by B only")
    .option("--json", "print one JSON object")
    .action((options: { b: string; c: string; json?: boolean }) => {
      const b = numericOption("b", options.b, { integer: true, min: 0 });
      const c = numericOption("c", options.c, { integer: true, min: 0 });
      const result = exactMcNemar({ b, c });
      if (options.json) process.stdout.write(`${JSON.stringify({ b, c, p: result.p, midP: result.midP })}\n`);
      else
        process.stdout.write(
          `exact McNemar: b = ${b}, c = ${c}, p = ${result.p.toPrecision(6)}, mid-p = ${result.midP.toPrecision(6)}\n`,
        );
    });
}
