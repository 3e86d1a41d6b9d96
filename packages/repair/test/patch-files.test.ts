import { describe, expect, it } from "vitest";
import { patchFiles } from "../src/patch-files.js";

// Patches as git writes them (the fixer's diffs are git's): the project's patch reader reads them.
describe("patchFiles", () => {
  it("names each file a git diff touches, in order: edits, new and deleted files, renames, binary files", () => {
    const patch = [
      "diff --git a/calc/ops.py b/calc/ops.py",
      "--- a/calc/ops.py",
      "+++ b/calc/ops.py",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "diff --git a/new.txt b/new.txt",
      "new file mode 100644",
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "diff --git a/old/name.py b/new/name.py",
      "similarity index 100%",
      "rename from old/name.py",
      "rename to new/name.py",
      "diff --git a/data.bin b/data.bin",
      "GIT binary patch",
      "literal 3",
      "zcmZ>",
      "",
      "literal 0",
      "HcmV?d00001",
      "",
    ].join("\n");
    expect(patchFiles(patch)).toEqual(["calc/ops.py", "new.txt", "gone.txt", "new/name.py", "data.bin"]);
  });
  it("an empty patch touches nothing; a quoted path loses its quotes", () => {
    expect(patchFiles("")).toEqual([]);
    expect(
      patchFiles(
        'diff --git "a/with space.py" "b/with space.py"\nnew file mode 100644\n--- /dev/null\n+++ "b/with space.py"\n@@ -0,0 +1 @@\n+x\n',
      ),
    ).toEqual(["with space.py"]);
  });
});
