import { describe, expect, it } from "vitest";
import { COMMAND_SUMMARIES } from "../src/command-summaries.js";
import { buildProgram } from "../src/program.js";

describe("the command index", () => {
  it("the command index lists every command the modules register, in order, with the same summaries", async () => {
    const full = await buildProgram({ load: "all" });
    const index = await buildProgram({ load: undefined });
    const summary = (program: Awaited<ReturnType<typeof buildProgram>>) =>
      program.commands.map((command) => [command.name(), command.description()]);
    expect(summary(index)).toEqual(summary(full));
    expect(full.commands.map((command) => command.name())).toEqual(Object.keys(COMMAND_SUMMARIES));
    expect(
      full.commands.every(
        (command) =>
          command.commands.length > 0 || command.options.length > 0 || command.registeredArguments.length > 0,
      ),
    ).toBe(true);
  });
});
