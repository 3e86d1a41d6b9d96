import { dottedModuleNames } from "@loclab/python";

/** Which kinds of mention of its gold an issue text holds (docs/definitions.md §4, what masking removes). */
export interface GoldMentions {
  /** A gold file's repository path (`django/db/models/query.py`), not glued to a longer name. */
  path: boolean;
  /** A dotted module path of a gold Python file (`django.db.models.query`, two parts or more). */
  module: boolean;
  /** A gold file's base name (`query.py`). */
  basename: boolean;
  /** A gold symbol name as a whole word (only when symbols are given). */
  symbol: boolean;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Measures what an issue text reveals of its gold: its files' paths, dotted modules, base
 * names, and (given) symbol names. A detector for reports and notebooks, written apart from
 * the masker so that it can judge it; backslashes count as slashes (Windows tracebacks).
 */
export function goldMentions(
  text: string,
  options: { goldFiles: readonly string[]; symbols?: readonly string[] },
): GoldMentions {
  const normalized = text.replace(/[\\/]+/g, "/");
  const has = (pattern: string) => new RegExp(pattern).test(normalized);
  return {
    path: options.goldFiles.some((file) => has(`(?<![\\w.\\-])${escape(file)}(?!\\w)`)),
    module: options.goldFiles.some((file) =>
      dottedModuleNames(file).some((name) => has(`(?<![\\w.])${escape(name)}(?!\\w)`)),
    ),
    basename: options.goldFiles.some((file) => has(`(?<![\\w.\\-])${escape(file.split("/").at(-1) as string)}(?!\\w)`)),
    symbol: (options.symbols ?? []).some(
      (name) => /^[A-Za-z_]\w*$/.test(name) && has(`(?<![\\w.])${escape(name)}(?!\\w)`),
    ),
  };
}
