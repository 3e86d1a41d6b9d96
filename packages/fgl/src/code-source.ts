import type { Workspace } from "@loclab/tools";
import type { FilePatch } from "@loclab/gold";
import type { ObservedRead } from "./observed-read.js";

/** A file's lines at base commit; `complete: false` when only some lines are known (holes are undefined). */
export interface FileLines {
  lines: ReadonlyArray<string | undefined>;
  complete: boolean;
}

/** Where ctx(z) takes its code from: the repository at base commit, or what a trajectory saw of it. */
export interface CodeSource {
  /** `checkout`: a real git checkout (tools' workspace); `observed`: lines seen in a trajectory and the patch's pre-image lines. */
  readonly kind: "checkout" | "observed";
  /** The file's lines, or undefined when the file does not exist at base commit (checkout) or was never seen (observed). */
  file(path: string): Promise<FileLines | undefined>;
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * The code of a materialized workspace at base commit (`materializeWorkspace` of the tools
 * package: a real git checkout from the mirror, read-only, shared by every run). A binary or
 * over-large file counts as absent: it cannot be shown as numbered lines.
 */
export function checkoutCode(workspace: Workspace): CodeSource {
  return {
    kind: "checkout",
    file: async (path) => {
      const read = await workspace.read(path);
      return read.kind === "text" ? { lines: splitLines(read.bytes.toString("utf8")), complete: true } : undefined;
    },
  };
}

/**
 * The code a trajectory saw at base commit before its first edit (the lines its reads showed)
 * together with the pre-image lines of its final patch's hunks (context and removed lines are
 * lines of the file at base commit): enough to render the teacher's own localization without
 * a checkout. Lines nobody saw are holes; a location over a hole cannot be rendered from it.
 */
export function observedCode(teacher: {
  observed: readonly ObservedRead[];
  patchFiles: readonly FilePatch[];
}): CodeSource {
  const files = new Map<string, Array<string | undefined>>();
  const put = (path: string, line: number, text: string) => {
    const lines = files.get(path) ?? [];
    if (lines[line - 1] === undefined) lines[line - 1] = text;
    files.set(path, lines);
  };
  for (const read of teacher.observed) for (const [line, text] of read.lines ?? []) put(read.path, line, text);
  for (const file of teacher.patchFiles) {
    if (file.oldPath === null) continue;
    for (const hunk of file.hunks)
      for (const line of hunk.lines) if (line.oldLine !== undefined) put(file.oldPath, line.oldLine, line.text);
  }
  const file = async (path: string): Promise<FileLines | undefined> => {
    const lines = files.get(path);
    return lines ? { lines: Array.from({ length: lines.length }, (_, i) => lines[i]), complete: false } : undefined;
  };
  return { kind: "observed", file };
}
