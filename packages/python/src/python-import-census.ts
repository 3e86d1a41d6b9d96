import { fromTarget, moduleLevelNames } from "./module-level-names.js";
import { PythonModuleIndex } from "./python-module-index.js";
import type { PythonSourceFacts } from "./python-source-facts.js";

/** How many of a tree's static imports resolve inside it. */
export interface ImportCensus {
  /** Python files counted (those with facts). */
  pythonFiles: number;
  /** Import statements read (outside parse errors; `__future__` excluded). */
  statements: number;
  /** Imported modules: each name of `import a, b.c`, and the module of each `from … import`. */
  moduleReferences: number;
  /** Of those, resolving to a module of the tree. */
  modulesResolved: number;
  /** Names of `from m import x` (not `*`). */
  nameReferences: number;
  /** Of those, with `m` resolved and `x` a submodule of it or a name it binds at module level. */
  namesResolved: number;
  /** `modulesResolved + namesResolved`: the figure that must not change under shuffling. */
  resolvable: number;
  /** Import statements skipped because they touch a parse error. */
  statementsInErrors: number;
}

/**
 * A static census of a tree's imports (evidence for repository shuffling, docs/definitions.md §4):
 * how many import references resolve to the tree's own modules under `PythonModuleIndex`'s
 * rules, and how many imported names exist (as a submodule, or a module-level binding of the
 * module they come from). Shuffling must leave `resolvable` unchanged: every in-repository
 * import still resolves, and no import that named another project starts resolving.
 *
 * `files` is the whole tree's file list (for resolution); `facts` holds the parsed Python
 * files. Pure. Cost: linear in the facts.
 */
export function importCensus(files: Iterable<string>, facts: ReadonlyMap<string, PythonSourceFacts>): ImportCensus {
  const index = new PythonModuleIndex(files);
  const namesCache = new Map<string, Set<string>>();
  const namesOf = (file: string) => {
    let names = namesCache.get(file);
    if (!names) {
      const fileFacts = facts.get(file);
      names = fileFacts ? moduleLevelNames(fileFacts).names : new Set();
      namesCache.set(file, names);
    }
    return names;
  };
  const census: ImportCensus = {
    pythonFiles: facts.size,
    statements: 0,
    moduleReferences: 0,
    modulesResolved: 0,
    nameReferences: 0,
    namesResolved: 0,
    resolvable: 0,
    statementsInErrors: 0,
  };
  for (const [file, fileFacts] of facts) {
    for (const fact of fileFacts.imports) {
      if (fact.inError) {
        census.statementsInErrors += 1;
        continue;
      }
      census.statements += 1;
      if (fact.form === "import") {
        for (const module of fact.modules) {
          census.moduleReferences += 1;
          if (
            index.resolveAbsolute(
              file,
              module.parts.map((part) => part.name),
            )
          )
            census.modulesResolved += 1;
        }
        continue;
      }
      census.moduleReferences += 1;
      const target = fromTarget(file, fact, index);
      if (target) census.modulesResolved += 1;
      for (const name of fact.names) {
        census.nameReferences += 1;
        const imported = name.parts.length === 1 ? name.parts[0]?.name : undefined;
        if (!target || imported === undefined) continue;
        const source = target.kind === "package" ? target.init : target.kind === "module" ? target.path : undefined;
        if (index.submodule(target, imported) || (source !== undefined && namesOf(source).has(imported)))
          census.namesResolved += 1;
      }
    }
  }
  census.resolvable = census.modulesResolved + census.namesResolved;
  return census;
}
