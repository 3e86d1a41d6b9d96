import { describe, expect, it } from "vitest";
import { loadPythonLanguage } from "../src/index.js";

describe("loadPythonLanguage", () => {
  it("loads the grammar once and parses Python", async () => {
    const first = await loadPythonLanguage();
    expect(await loadPythonLanguage()).toBe(first);
    const tree = first.newParser().parse("from . import x\nimport a.b as c\n");
    expect(tree?.rootNode.type).toBe("module");
    const captures = first.query("(import_statement) @import (import_from_statement) @from").captures(tree!.rootNode);
    expect(captures.map((capture) => capture.name)).toEqual(["from", "import"]);
  });
});
