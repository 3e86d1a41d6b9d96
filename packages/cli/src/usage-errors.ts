import type { Command } from "commander";

/** Levenshtein distance, for "did you mean" suggestions (short strings only). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j += 1) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** The closest of `candidates` to `word`, when it is close enough to be a likely typo. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(word, candidate);
    if (score <= Math.max(2, Math.floor(candidate.length / 4)) && (!best || score < best.score))
      best = { candidate, score };
  }
  return best?.candidate;
}

/** The (sub)command an argument list addresses, and the arguments after its name. */
export function addressedCommand(
  program: Command,
  args: readonly string[],
): { command: Command; path: string[]; rest: string[] } {
  let command = program;
  const path: string[] = [];
  let rest = [...args];
  for (;;) {
    const [next, ...tail] = rest;
    const sub =
      next === undefined
        ? undefined
        : command.commands.find((candidate) => candidate.name() === next || candidate.aliases().includes(next));
    if (!sub) return { command, path, rest };
    command = sub;
    path.push(sub.name());
    rest = tail;
  }
}

/**
 * Checks the long options of a command line before commander parses it, so that a misspelt
 * option (`--benchmak`) is reported as unknown, with the closest known one, instead of as the
 * required option it was meant to be. Returns the error message, or undefined.
 */
export function unknownOptionMessage(program: Command, args: readonly string[]): string | undefined {
  const { command, path, rest } = addressedCommand(program, args);
  if (path.length === 0) return undefined;
  const known = new Set<string>(["--help"]);
  for (const option of command.options) if (option.long) known.add(option.long);
  for (const arg of rest) {
    if (arg === "--") break;
    if (!arg.startsWith("--")) continue;
    const name = arg.split("=")[0] as string;
    if (known.has(name)) continue;
    const close = suggest(name, [...known]);
    return `unknown option '${name}'${close ? ` (did you mean ${close}?)` : ""}; see 'loclab ${path.join(" ")} --help'`;
  }
  return undefined;
}
