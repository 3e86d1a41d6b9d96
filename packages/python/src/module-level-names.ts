import type { FromImportFact, PythonSourceFacts } from "./python-source-facts.js";
import type { ModuleStep, PythonModuleIndex } from "./python-module-index.js";

/**
 * Every name a module binds at module level (inside top-level `if` / `try` / `with` / `for`
 * too): `def`, `class`, assignment and `for` targets, and what its imports bind
 * (`import a.b` binds `a`, `import a.b as c` and `from m import x as c` bind `c`). `wildcard`
 * says a `from m import *` may bind more. This is what `from module import name` can find
 * besides a submodule.
 */
export function moduleLevelNames(facts: PythonSourceFacts): { names: Set<string>; wildcard: boolean } {
  const names = new Set(facts.definitions);
  let wildcard = false;
  for (const fact of facts.imports) {
    if (!fact.moduleLevel) continue;
    if (fact.form === "from" && fact.wildcard) wildcard = true;
    const bound = fact.form === "import" ? fact.modules : fact.names;
    for (const name of bound) names.add((name.alias ?? name.parts[0])?.name ?? "");
  }
  names.delete("");
  return { names, wildcard };
}

/**
 * The names a package's `__init__` binds to something other than its own submodule of that
 * name — `def x`, `x = …`, `from .x import x` (the function, not the module), `import json`
 * beside a `json.py` — so that `from package import x` means that object, and shuffling must
 * not turn it into an import of the submodule. A binding of the submodule itself
 * (`from . import x`, `from package import x`) is not one of them.
 */
export function shadowingNames(init: string, facts: PythonSourceFacts, index: PythonModuleIndex): Set<string> {
  const names = new Set(facts.definitions);
  const folder = init.slice(0, Math.max(0, init.lastIndexOf("/")));
  const submodulePath = (name: string) => index.child(folder, name)?.path;
  for (const fact of facts.imports) {
    if (!fact.moduleLevel || fact.inError) continue;
    if (fact.form === "import") {
      for (const module of fact.modules) {
        const bound = (module.alias ?? module.parts[0])?.name;
        if (bound === undefined) continue;
        const steps = module.alias
          ? index.resolveAbsolute(
              init,
              module.parts.map((part) => part.name),
            )
          : undefined;
        if (steps?.at(-1)?.path !== submodulePath(bound) || submodulePath(bound) === undefined) names.add(bound);
      }
      continue;
    }
    const target = fromTarget(init, fact, index);
    for (const name of fact.names) {
      const imported = name.parts[0]?.name;
      const bound = (name.alias ?? name.parts[0])?.name;
      if (imported === undefined || bound === undefined) continue;
      const object = target ? index.submodule(target, imported)?.path : undefined;
      if (object === undefined || object !== submodulePath(bound)) names.add(bound);
    }
  }
  return names;
}

/** The module a `from … import` statement imports from, resolved, or `undefined`. */
export function fromTarget(file: string, fact: FromImportFact, index: PythonModuleIndex): ModuleStep | undefined {
  const components = fact.module.map((part) => part.name);
  if (fact.level > 0) {
    const resolved = index.resolveRelative(file, fact.level, components);
    return resolved ? (resolved.steps.at(-1) ?? resolved.base) : undefined;
  }
  return index.resolveAbsolute(file, components)?.at(-1);
}
