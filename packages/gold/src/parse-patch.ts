import { PatchParseError } from "./patch-error.js";
import type { FilePatch, Hunk, HunkLine } from "./patch-types.js";

export interface ParsePatchOptions {
  /** Named in every error, so a failure in a whole-benchmark run says which row. */
  instanceId?: string;
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$/;

/**
 * Parses a unified diff (git's extended form or plain `---`/`+++`) into file diffs.
 *
 * Hunk bodies are read by the counts in their `@@` header, as `git apply` does, so a
 * removed line that itself starts with `--` or `diff` is never mistaken for a header, and a
 * hunk whose body does not match its counts is an error rather than a silent misread.
 * Handles renames, copies, deletions, new files, mode changes, binary patches (skipped,
 * flagged), `\ No newline at end of file`, CRLF patches, several files and an empty patch
 * (no files). Anything else — text where a file header or hunk line must be — throws a
 * `PatchParseError` naming the instance, the patch line and its text.
 *
 * @example parsePatch(instance.patch, { instanceId: instance.instance_id })
 */
export function parsePatch(patch: string, options: ParsePatchOptions = {}): FilePatch[] {
  return new PatchReader(patch, options.instanceId ?? "<patch>").readFiles();
}

/** The largest line number or count a hunk header may give. */
const MAX_LINE_NUMBER = 1_000_000_000;

class PatchReader {
  private readonly lines: string[];
  private index = 0;

  constructor(
    patch: string,
    private readonly instanceId: string,
  ) {
    this.lines = patch.split("\n");
    // A final newline leaves one empty string behind; it is not a line of the patch.
    if (this.lines.at(-1) === "") this.lines.pop();
  }

  readFiles(): FilePatch[] {
    const files: FilePatch[] = [];
    while (this.index < this.lines.length) {
      const line = this.header(this.index);
      if (line.startsWith("diff --git ")) files.push(this.readGitFile());
      else if (line.startsWith("--- ") && this.header(this.index + 1).startsWith("+++ "))
        files.push(this.readPlainFile());
      else if (line.trim() === "") this.index += 1;
      else this.fail(this.index, 'expected a file header ("diff --git" or "---")');
    }
    return files;
  }

  /** A header line without the `\r` of a CRLF patch (content lines keep theirs). */
  private header(index: number): string {
    const line = this.lines[index] ?? "";
    return line.endsWith("\r") ? line.slice(0, -1) : line;
  }

  private fail(index: number, reason: string): never {
    throw new PatchParseError(this.instanceId, index + 1, this.lines[index] ?? "<end of patch>", reason);
  }

  private readGitFile(): FilePatch {
    const start = this.index;
    const [oldPath, newPath] = this.gitHeaderPaths(start);
    const file: FilePatch = { oldPath, newPath, status: "modified", binary: false, hunks: [], patchLine: start + 1 };
    this.index += 1;
    while (this.index < this.lines.length) {
      const line = this.header(this.index);
      const value = (prefix: string) => line.slice(prefix.length);
      if (line.startsWith("diff --git ") || line.trim() === "") break;
      if (line.startsWith("--- ")) {
        this.readFileLines(file);
        this.readHunks(file);
        this.requireHunks(file);
        break;
      }
      if (line.startsWith("Binary files ")) {
        file.binary = true;
        this.index += 1;
        break;
      }
      if (line === "GIT binary patch") {
        file.binary = true;
        this.skipBinaryData();
        break;
      }
      if (line.startsWith("old mode ")) file.oldMode = value("old mode ");
      else if (line.startsWith("new mode ")) file.newMode = value("new mode ");
      else if (line.startsWith("deleted file mode ")) {
        file.status = "deleted";
        file.oldMode = value("deleted file mode ");
        file.newPath = null;
      } else if (line.startsWith("new file mode ")) {
        file.status = "added";
        file.newMode = value("new file mode ");
        file.oldPath = null;
      } else if (line.startsWith("rename from ")) {
        file.status = "renamed";
        file.oldPath = unquote(value("rename from "));
      } else if (line.startsWith("rename to ")) file.newPath = unquote(value("rename to "));
      else if (line.startsWith("copy from ")) {
        file.status = "copied";
        file.oldPath = unquote(value("copy from "));
      } else if (line.startsWith("copy to ")) file.newPath = unquote(value("copy to "));
      else if (line.startsWith("similarity index ")) file.similarity = Number.parseInt(value("similarity index "), 10);
      else if (line.startsWith("dissimilarity index ") || line.startsWith("index ")) {
        // Blob ids and dissimilarity say nothing about locations.
      } else this.fail(this.index, "unexpected line in a file header");
      this.index += 1;
    }
    const changesSomething =
      file.binary ||
      file.hunks.length > 0 ||
      file.status !== "modified" ||
      file.oldMode !== undefined ||
      file.newMode !== undefined;
    if (!changesSomething)
      this.fail(
        start,
        'a "diff --git" header with nothing after it (no hunks, mode change, rename or binary marker): is the patch cut off?',
      );
    this.checkPaths(file);
    return file;
  }

  /** After `---`/`+++` a hunk must follow (git writes none for a pure rename or mode change, and then no `---` either). */
  private requireHunks(file: FilePatch): void {
    if (file.hunks.length === 0)
      this.fail(this.index, 'expected a hunk ("@@ -a,b +c,d @@") after the "---"/"+++" lines: is the patch cut off?');
  }

  /** A diff without git's `diff --git` line: `--- old` and `+++ new`, then hunks. */
  private readPlainFile(): FilePatch {
    const file: FilePatch = {
      oldPath: null,
      newPath: null,
      status: "modified",
      binary: false,
      hunks: [],
      patchLine: this.index + 1,
    };
    this.readFileLines(file);
    if (file.oldPath === null && file.newPath === null) this.fail(file.patchLine - 1, "both sides are /dev/null");
    this.readHunks(file);
    this.requireHunks(file);
    this.checkPaths(file);
    return file;
  }

  /** Reads the `---` / `+++` pair; `/dev/null` marks a created or deleted file. */
  private readFileLines(file: FilePatch): void {
    const minus = this.header(this.index);
    const plus = this.header(this.index + 1);
    if (!plus.startsWith("+++ ")) this.fail(this.index + 1, 'expected "+++ " after "--- "');
    const oldPath = fileLinePath(minus.slice(4), "a/");
    const newPath = fileLinePath(plus.slice(4), "b/");
    // A git header may already have set the status (new/deleted file mode, rename); the
    // `---`/`+++` pair gives exact paths (`diff --git` is ambiguous when a path holds " b/").
    if (oldPath === null) {
      file.oldPath = null;
      if (file.status === "modified") file.status = "added";
    } else if (file.status !== "added") file.oldPath = oldPath;
    if (newPath === null) {
      file.newPath = null;
      if (file.status === "modified") file.status = "deleted";
    } else if (file.status !== "deleted") file.newPath = newPath;
    this.index += 2;
  }

  private readHunks(file: FilePatch): void {
    while (this.index < this.lines.length && this.header(this.index).startsWith("@@")) {
      const hunk = this.readHunk();
      const previous = file.hunks.at(-1);
      // Hunks apply top to bottom without overlapping (git apply refuses anything else).
      if (previous) {
        const previousEnd = previous.oldLines === 0 ? previous.oldStart : previous.oldStart + previous.oldLines - 1;
        if (hunk.oldStart <= previousEnd)
          this.fail(
            hunk.patchLine - 1,
            `the hunk overlaps or precedes the one at patch line ${previous.patchLine} (old lines ${previous.oldStart}–${previousEnd})`,
          );
      }
      file.hunks.push(hunk);
    }
  }

  /** Paths must name files of the repository: relative, no `..`, no control characters. */
  private checkPaths(file: FilePatch): void {
    for (const path of [file.oldPath, file.newPath]) {
      if (path === null) continue;
      const problem =
        path === ""
          ? "an empty path"
          : path.startsWith("/")
            ? "an absolute path"
            : path.split("/").includes("..")
              ? 'a path with a ".." segment'
              : /[\x00-\x1f]/.test(path)
                ? "a path with a control character (a stray carriage return?)"
                : undefined;
      if (problem)
        this.fail(file.patchLine - 1, `${problem}, ${JSON.stringify(path)}: a patch names files inside the repository`);
    }
  }

  private readHunk(): Hunk {
    const headerIndex = this.index;
    const match = HUNK_HEADER.exec(this.header(headerIndex));
    if (!match) this.fail(headerIndex, "malformed hunk header (expected @@ -a,b +c,d @@)");
    const count = (text: string | undefined) => (text === undefined ? 1 : Number.parseInt(text, 10));
    const hunk: Hunk = {
      oldStart: Number.parseInt(match[1] ?? "0", 10),
      oldLines: count(match[2]),
      newStart: Number.parseInt(match[3] ?? "0", 10),
      newLines: count(match[4]),
      section: match[5] ?? "",
      patchLine: headerIndex + 1,
      lines: [],
    };
    // No real file has a billion lines; larger numbers are damage (and past 2^53 not even exact).
    for (const [name, value] of [
      ["old start", hunk.oldStart],
      ["old count", hunk.oldLines],
      ["new start", hunk.newStart],
      ["new count", hunk.newLines],
    ] as const) {
      if (!(value <= MAX_LINE_NUMBER))
        this.fail(headerIndex, `the ${name} ${value} is too large (at most ${MAX_LINE_NUMBER})`);
    }
    // Line numbers start at 1: a start of 0 only goes with an empty range (`-0,0`: before line 1).
    if (hunk.oldStart === 0 && hunk.oldLines > 0)
      this.fail(headerIndex, `a hunk of ${hunk.oldLines} old line(s) cannot start at line 0`);
    if (hunk.newStart === 0 && hunk.newLines > 0)
      this.fail(headerIndex, `a hunk of ${hunk.newLines} new line(s) cannot start at line 0`);
    let oldLeft = hunk.oldLines;
    let newLeft = hunk.newLines;
    // With an empty range, the start names the line before it (`@@ -0,0 +1,3 @@`).
    let oldLine = hunk.oldLines === 0 ? hunk.oldStart + 1 : hunk.oldStart;
    let newLine = hunk.newLines === 0 ? hunk.newStart + 1 : hunk.newStart;
    this.index += 1;
    const shortBy = () => `hunk at line ${headerIndex + 1} ends ${oldLeft} old and ${newLeft} new lines short`;
    while (oldLeft > 0 || newLeft > 0) {
      if (this.index >= this.lines.length) this.fail(this.index, shortBy());
      const raw = this.lines[this.index] ?? "";
      const marker = raw[0];
      const patchLine = this.index + 1;
      // Some tools strip the single space of an empty context line; git apply accepts that.
      const isBareEmpty = raw === "" || raw === "\r";
      let line: HunkLine;
      if (marker === " " || isBareEmpty) {
        if (oldLeft === 0 || newLeft === 0)
          this.fail(this.index, `context line beyond the counts of the hunk at line ${headerIndex + 1}`);
        line = {
          kind: "context",
          text: isBareEmpty ? raw : raw.slice(1),
          oldLine: oldLine++,
          newLine: newLine++,
          patchLine,
        };
        oldLeft -= 1;
        newLeft -= 1;
      } else if (marker === "-") {
        if (oldLeft === 0)
          this.fail(this.index, `removed line beyond the counts of the hunk at line ${headerIndex + 1}`);
        line = { kind: "removed", text: raw.slice(1), oldLine: oldLine++, patchLine };
        oldLeft -= 1;
      } else if (marker === "+") {
        if (newLeft === 0) this.fail(this.index, `added line beyond the counts of the hunk at line ${headerIndex + 1}`);
        line = { kind: "added", text: raw.slice(1), newLine: newLine++, patchLine };
        newLeft -= 1;
      } else if (marker === "\\") {
        this.markNoNewline(hunk);
        continue;
      } else {
        this.fail(this.index, `expected a hunk line (" ", "-", "+" or "\\"); ${shortBy()}`);
      }
      hunk.lines.push(line);
      this.index += 1;
    }
    // `\ No newline at end of file` may follow the last counted line.
    while (this.index < this.lines.length && (this.lines[this.index] ?? "").startsWith("\\")) this.markNoNewline(hunk);
    return hunk;
  }

  private markNoNewline(hunk: Hunk): void {
    const previous = hunk.lines.at(-1);
    if (!previous) this.fail(this.index, '"\\ No newline at end of file" before any hunk line');
    previous.noNewlineAtEnd = true;
    this.index += 1;
  }

  /** Skips the base85 `literal`/`delta` blocks of a `GIT binary patch` up to the next file. */
  private skipBinaryData(): void {
    this.index += 1;
    while (this.index < this.lines.length && !this.header(this.index).startsWith("diff --git ")) this.index += 1;
  }

  /** Paths from `diff --git a/x b/y`; used only when no `---`/`+++` or rename lines follow. */
  private gitHeaderPaths(index: number): [string, string] {
    const rest = this.header(index).slice("diff --git ".length);
    if (rest.startsWith('"')) {
      const { value: first, end } = readQuoted(rest, 0);
      const second = rest.slice(end + 1);
      return [
        stripPrefix(first, "a/"),
        stripPrefix(second.startsWith('"') ? readQuoted(second, 0).value : second, "b/"),
      ];
    }
    // Same path on both sides (the usual case): "a/P b/P" has length 2·|P| + 5.
    const half = (rest.length - 5) / 2;
    if (Number.isInteger(half) && rest.startsWith("a/") && rest.slice(2, 2 + half) === rest.slice(5 + half)) {
      const path = rest.slice(2, 2 + half);
      return [path, path];
    }
    const cut = rest.lastIndexOf(" b/");
    if (cut < 0) this.fail(index, 'cannot read the paths of "diff --git"');
    const second = rest.slice(cut + 1);
    return [
      stripPrefix(rest.slice(0, cut), "a/"),
      stripPrefix(second.startsWith('"') ? readQuoted(second, 0).value : second, "b/"),
    ];
  }
}

/** The path of a `---`/`+++` line: `/dev/null` → null; a tab ends the path (a timestamp follows). */
function fileLinePath(text: string, prefix: string): string | null {
  const raw = text.startsWith('"') ? readQuoted(text, 0).value : (text.split("\t")[0] ?? "").trimEnd();
  if (raw === "/dev/null") return null;
  return stripPrefix(raw, prefix);
}

function stripPrefix(path: string, prefix: string): string {
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function unquote(text: string): string {
  return text.startsWith('"') ? readQuoted(text, 0).value : text;
}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "\\": "\\",
  a: "\x07",
  b: "\b",
  f: "\f",
  v: "\v",
};

/**
 * Reads a C-style quoted path as git writes it for unusual names (`"a/caf\303\251.py"`):
 * octal escapes are UTF-8 bytes.
 */
function readQuoted(text: string, start: number): { value: string; end: number } {
  const bytes: number[] = [];
  let i = start + 1;
  while (i < text.length && text[i] !== '"') {
    const ch = text[i] ?? "";
    if (ch === "\\") {
      const next = text[i + 1] ?? "";
      if (/[0-7]/.test(next)) {
        bytes.push(Number.parseInt(text.slice(i + 1, i + 4), 8));
        i += 4;
        continue;
      }
      bytes.push(...Buffer.from(ESCAPES[next] ?? next, "utf8"));
      i += 2;
      continue;
    }
    bytes.push(...Buffer.from(ch, "utf8"));
    i += 1;
  }
  return { value: Buffer.from(bytes).toString("utf8"), end: i + 1 };
}
