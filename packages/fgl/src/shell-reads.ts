import type { ObservedRead } from "./observed-read.js";

/**
 * Reads of repository files recognised in one shell command of mini-swe-agent (docs/definitions.md
 * §5). Each command runs in a fresh shell at the repository root (`/testbed`); a `cd` inside the
 * command moves the relative paths after it. Recognised, alone or after `cd … &&`, and with `;`,
 * `&&`, `||` between statements:
 *
 * - `cat FILE…` and `cat -n FILE` (the whole file, as far as the output shows it);
 * - `sed -n 'A,Bp' FILE` (also `Ap`, `A,+Np`), and `cat -n FILE | sed -n 'A,Bp'` / `nl -ba FILE | sed -n 'A,Bp'`;
 * - `nl -ba FILE`, `head [-n] N FILE`, `tail -n N FILE` (the file's last N lines), `cat FILE | head -N`;
 * - `awk 'NR>=A && NR<=B' FILE`;
 * - `grep -n … FILE…` (and any command whose output is `[path:]N:text` lines after a `grep -n`):
 *   the matched and context lines it printed, one read per run of consecutive lines.
 *
 * A command with a here-document, a redirection into a file, or `sed -i` is not a read. An
 * observation that is only mini-swe-agent's "output too long" warning shows nothing, so it is
 * no read; a truncated one (`<output_head>`) counts the lines of its head that arrived whole.
 * Paths outside the repository root (`/tmp/x`) and globbed words are left out.
 */
export function shellReads(
  command: string,
  observation: string | undefined,
  step: number,
  root = "/testbed",
): ObservedRead[] {
  if (writesFiles(command)) return [];
  const output = shellOutput(observation);
  if (output === undefined) return [];
  const reads: ObservedRead[] = [];
  let cwd = root;
  for (const statement of splitUnquoted(command, ["&&", "||", ";", "\n"])) {
    const pipeline = splitUnquoted(statement, ["|"]).map((part) => shellWords(part.trim()));
    const first = pipeline[0] ?? [];
    if (first[0] === "cd" && first[1] !== undefined && pipeline.length === 1) {
      cwd = resolvePath(cwd, first[1]);
      continue;
    }
    const read = recognise(pipeline, output, step, (word) => repositoryPath(resolvePath(cwd, word), root));
    reads.push(...read);
  }
  return reads;
}

/** A here-document, `sed -i`/`perl -i`, or a redirection into a file (quoted text and `2>&1`, `>/dev/null` aside). */
export function writesFiles(command: string): boolean {
  const unquoted = command.replace(/'[^']*'|"(?:\\.|[^"\\])*"/g, "''").replace(/\d?>&\d|\d?>\s*\/dev\/null/g, "");
  return (
    /<<|\bsed\s+(-[a-zA-Z]+\s+)*-i|\bperl\s+-[a-z]*i/.test(unquoted) ||
    />{1,2}\s*[^&\s]/.test(unquoted) ||
    /\btee\b/.test(unquoted)
  );
}

/** The text a mini-swe-agent observation shows: `<output>`, or the whole lines of `<output_head>`; undefined for a warning alone. */
export function shellOutput(observation: string | undefined): { text: string; complete: boolean } | undefined {
  if (observation === undefined) return undefined;
  const whole = /<output>\n?([\s\S]*?)<\/output>/.exec(observation);
  if (whole) return { text: whole[1] as string, complete: true };
  const head = /<output_head>\n?([\s\S]*?)<\/output_head>/.exec(observation);
  if (head) {
    // mini-swe-agent's template puts a newline after the first 5,000 characters whether or not
    // they end a line: the head's last line is cut unless proven otherwise, so it is dropped.
    const text = (head[1] as string).replace(/\n$/, "");
    const cut = text.lastIndexOf("\n");
    return { text: cut < 0 ? "" : text.slice(0, cut + 1), complete: false };
  }
  if (/<warning>/.test(observation)) return undefined;
  // An observation without mini-swe-agent's tags (an older harness): the text as it stands.
  return { text: observation.replace(/^<returncode>-?\d+<\/returncode>\n?/, ""), complete: true };
}

type Output = { text: string; complete: boolean };

function recognise(
  pipeline: string[][],
  output: Output,
  step: number,
  toRepo: (word: string) => string | undefined,
): ObservedRead[] {
  const [first = [], second, third] = pipeline;
  if (third !== undefined) return numberedOutput(first, output, step, toRepo);
  const name = first[0];
  const files = (words: string[]) => words.slice(1).filter((w) => !w.startsWith("-"));
  if (second !== undefined) {
    // A file printed with numbers, then a range of it.
    const range = second[0] === "sed" ? sedRange(second) : second[0] === "head" ? headCount(second) : undefined;
    const numbered = (name === "cat" && first.includes("-n")) || name === "nl";
    const only = name === "cat" || name === "nl" ? files(first).filter((w) => !/^\d+$/.test(w)) : [];
    if (range && only.length === 1) {
      const path = toRepo(only[0] as string);
      if (!path) return [];
      return [rangeRead(path, range.start, output, step, name as string, numbered)];
    }
    return numberedOutput(first, output, step, toRepo);
  }
  switch (name) {
    case "cat": {
      const targets = files(first);
      if (targets.length !== 1) return []; // several files run together: no line is attributable
      const path = toRepo(targets[0] as string);
      return path ? [rangeRead(path, 1, output, step, "cat", first.includes("-n"))] : [];
    }
    case "nl": {
      const targets = files(first);
      const path = targets.length === 1 ? toRepo(targets[0] as string) : undefined;
      return path ? [rangeRead(path, 1, output, step, "nl", true)] : [];
    }
    case "sed": {
      const range = sedRange(first);
      const target = first.at(-1);
      const path = range && target && target !== first[1] ? toRepo(target) : undefined;
      return path ? [rangeRead(path, range!.start, output, step, "sed -n", false)] : [];
    }
    case "head": {
      const target = first.at(-1);
      const path = target && !target.startsWith("-") && !/^\d+$/.test(target) ? toRepo(target) : undefined;
      return path ? [rangeRead(path, 1, output, step, "head", false)] : [];
    }
    case "tail": {
      const count = tailCount(first);
      const target = first.at(-1);
      const path = count && target && !target.startsWith("-") && !/^\+?\d+$/.test(target) ? toRepo(target) : undefined;
      if (!path || !count) return [];
      if (count.from !== undefined) return [rangeRead(path, count.from, output, step, "tail", false)];
      const lines = outputLines(output);
      return [{ path, fromEnd: lines.length, via: "tail", step }];
    }
    case "awk": {
      const match = /NR\s*>=?\s*(\d+)\s*&&\s*NR\s*<=?\s*(\d+)/.exec(first[1] ?? "");
      const target = first.at(-1);
      const path = match && target && target !== first[1] ? toRepo(target) : undefined;
      return path ? [rangeRead(path, Number(match![1]), output, step, "awk", false)] : [];
    }
    case "grep":
    case "rg":
      return numberedOutput(first, output, step, toRepo);
    default:
      return [];
  }
}

/** `sed -n 'A,Bp'`, `'Ap'`, `'A,+Np'` (the range's first line; the output says how many lines came). */
function sedRange(words: string[]): { start: number } | undefined {
  if (words[1] !== "-n") return undefined;
  const match = /^(\d+)(?:,(\+?)(\d+))?p$/.exec(words[2] ?? "");
  return match ? { start: Number(match[1]) } : undefined;
}

function headCount(words: string[]): { start: number } | undefined {
  return words.length <= 3 ? { start: 1 } : undefined;
}

function tailCount(words: string[]): { from?: number; last?: number } | undefined {
  const n = words.indexOf("-n");
  const value = n >= 0 ? words[n + 1] : (words.find((w) => /^-\d+$/.test(w))?.slice(1) ?? "10");
  if (value === undefined) return undefined;
  if (value.startsWith("+")) return { from: Number(value.slice(1)) };
  return /^\d+$/.test(value) ? { last: Number(value) } : undefined;
}

function outputLines(output: Output): string[] {
  if (output.text === "") return [];
  const lines = output.text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Lines `start…` of `path` as the output shows them, one per output line (numbered output: the number and tab stripped). */
function rangeRead(
  path: string,
  start: number,
  output: Output,
  step: number,
  via: string,
  numbered: boolean,
): ObservedRead {
  const lines = new Map<number, string>();
  let line = start;
  for (const text of outputLines(output)) {
    if (numbered) {
      const match = /^\s*(\d+)\t(.*)$/.exec(text) ?? /^\s*(\d+)\s(.*)$/.exec(text);
      if (!match) continue;
      lines.set(Number(match[1]), match[2] as string);
      continue;
    }
    lines.set(line, text);
    line += 1;
  }
  const numbers = [...lines.keys()];
  if (numbers.length === 0) return { path, startLine: start, endLine: start - 1, lines, via, step };
  return { path, startLine: Math.min(...numbers), endLine: Math.max(...numbers), lines, via, step };
}

/** `[path:]N:text` / `[path-]N-text` lines of a `grep -n` (the path when several files were searched). */
function numberedOutput(
  first: string[],
  output: Output,
  step: number,
  toRepo: (word: string) => string | undefined,
): ObservedRead[] {
  if ((first[0] !== "grep" && first[0] !== "rg") || !first.some((w) => /^-[a-zA-Z]*n/.test(w))) return [];
  const targets = first.slice(1).filter((w) => !w.startsWith("-"));
  const single =
    targets.length === 2 && !first.some((w) => /^-[a-zA-Z]*r/.test(w) || w === "--recursive") ? targets[1] : undefined;
  const byPath = new Map<string, Map<number, string>>();
  for (const text of outputLines(output)) {
    const match = single !== undefined ? /^(\d+)[:-](.*)$/.exec(text) : /^(.+?)[:-](\d+)[:-](.*)$/.exec(text);
    if (!match) continue;
    const word = single ?? (match[1] as string);
    const path = toRepo(word);
    if (!path) continue;
    const number = Number(single !== undefined ? match[1] : match[2]);
    const lines = byPath.get(path) ?? new Map<number, string>();
    lines.set(number, (single !== undefined ? match[2] : match[3]) as string);
    byPath.set(path, lines);
  }
  // Each run of consecutive lines (a hit with its -A/-B/-C context) is one read: the lines
  // between two hits were not shown.
  const reads: ObservedRead[] = [];
  for (const [path, lines] of byPath) {
    const numbers = [...lines.keys()].sort((a, b) => a - b);
    let run: number[] = [];
    const flush = () => {
      if (run.length > 0)
        reads.push({
          path,
          startLine: run[0]!,
          endLine: run.at(-1)!,
          lines: new Map(run.map((n) => [n, lines.get(n)!])),
          via: "grep -n",
          step,
        });
      run = [];
    };
    for (const n of numbers) {
      if (run.length > 0 && n !== run.at(-1)! + 1) flush();
      run.push(n);
    }
    flush();
  }
  return reads;
}

/** Splits at any of `separators` outside quotes (the longest separator first). */
export function splitUnquoted(text: string, separators: readonly string[]): string[] {
  const ordered = [...separators].sort((a, b) => b.length - a.length);
  const parts: string[] = [];
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i += 1;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (c === "\\") {
      i += 1;
      continue;
    }
    // `||` is not a pipe: when splitting pipelines only, skip it whole.
    if (text.startsWith("||", i) && !ordered.includes("||")) {
      i += 1;
      continue;
    }
    const separator = ordered.find((sep) => text.startsWith(sep, i));
    if (separator) {
      parts.push(text.slice(start, i));
      start = i + separator.length;
      i = start - 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Splits a command into words with shell quoting (single, double, backslash); no expansion. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

export function resolvePath(cwd: string, word: string): string {
  const parts = (word.startsWith("/") ? word : `${cwd}/${word}`).split("/");
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}

/** The repository-relative path of an absolute path under `root`, or undefined (outside, or a glob). */
export function repositoryPath(absolute: string, root: string): string | undefined {
  const base = root.endsWith("/") ? root : `${root}/`;
  if (!absolute.startsWith(base) || /[*?[\]{}$`]/.test(absolute)) return undefined;
  const path = absolute.slice(base.length);
  return path === "" ? undefined : path;
}
