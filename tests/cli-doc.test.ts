import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// docs/cli.md is generated from the CLI's own --help (scripts/cli-doc.mjs): it must be current.
describe("docs/cli.md", () => {
  it("is what scripts/cli-doc.mjs generates from every command's --help", () => {
    const script = fileURLToPath(new URL("../scripts/cli-doc.mjs", import.meta.url));
    let output = "";
    let status = 0;
    try {
      output = execFileSync(process.execPath, [script, "--check"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      status = (error as { status: number }).status;
      output = String((error as { stderr?: string }).stderr);
    }
    expect(status, output).toBe(0);
    expect(output).toContain("docs/cli.md is current");
  });
});
