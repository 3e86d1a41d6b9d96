import {
  type ModuleStep,
  type NamePart,
  type PythonModuleIndex,
  type PythonSourceFacts,
  shadowingNames,
} from "@loclab/python";
import { splitFileName } from "./shuffle-names.js";
import type { ShuffleLookup } from "./shuffle-paths.js";
import type { TextEdit } from "./text-edits.js";

/** What the import rewriting of one file (or, summed, of a tree) did. */
export interface ImportRewriteStats {
  /** Import statements read (`__future__` imports excluded), outside parse errors. */
  statements: number;
  /** Of those, statements whose text changed. */
  statementsRewritten: number;
  /** Imported modules: each name of `import a, b.c`, and the module of each `from … import`. */
  moduleReferences: number;
  /** Of those, the ones that resolve to a repository module (and were rewritten to its new name). */
  inRepository: number;
  /**
   * Imports that start in the repository (a relative import, or an absolute one whose first
   * name is the repository's) but do not resolve to a module of it: left as written, as
   * broken (or as dynamic) as before.
   */
  unresolvedInRepository: number;
  /**
   * Of those, imports whose leading components that do resolve were renamed, the absent tail
   * left as written (`from sympy.gone import x` → `from d_….gone import x`): the repository's
   * own package names do not survive in an import of a module the tree lacks.
   */
  prefixRenamed: number;
  /** `from package import submodule` names renamed (with `as submodule`, keeping the binding). */
  submoduleNamesRenamed: number;
  /** Attribute chains in code (`django.db.models.Model` after `import django.db.models`) rewritten. */
  attributeReferencesRewritten: number;
  /** String literals whose value is a dotted path into the repository (`"django.contrib.admin"`). */
  dynamicReferences: number;
  /** Of those, rewritten (only with `rewriteDottedStrings`). */
  dynamicReferencesRewritten: number;
  /** Import statements inside or holding a parse error: left as written. */
  skippedInErrors: number;
}

export const EMPTY_IMPORT_REWRITE_STATS: Readonly<ImportRewriteStats> = {
  statements: 0,
  statementsRewritten: 0,
  moduleReferences: 0,
  inRepository: 0,
  unresolvedInRepository: 0,
  prefixRenamed: 0,
  submoduleNamesRenamed: 0,
  attributeReferencesRewritten: 0,
  dynamicReferences: 0,
  dynamicReferencesRewritten: 0,
  skippedInErrors: 0,
};

/** What import rewriting needs besides the file's own facts. */
export interface ImportRewriteContext {
  index: PythonModuleIndex;
  /** The mapping, original → shuffled. */
  lookup: ShuffleLookup;
  /** The facts of another Python file of the repository (for `__init__` files), if parsed. */
  factsOf: (file: string) => PythonSourceFacts | undefined;
  /** Also rewrite dotted-path strings (default off: they are only counted). */
  rewriteDottedStrings?: boolean;
  /**
   * Add `as <original name>` where a renamed import would otherwise bind a new name
   * (`import a`, `from pkg import submodule`), so the code's names stay bound: the copy runs.
   * Default on. Off, those original names no longer appear in import lines (a model cannot
   * read the renaming off them), the copy still compiles and resolves statically, but code
   * that uses the names fails at run time.
   */
  keepBindings?: boolean;
  /** Memo of `shadowingNames` per `__init__` file, shared across files. */
  shadowCache?: Map<string, Set<string>>;
}

export interface ImportRewrites {
  edits: TextEdit[];
  stats: ImportRewriteStats;
}

interface Binding {
  target: ModuleStep;
  /** The name the binding gets in the shuffled code when it is not kept (`import a.b` binds `d_…`). */
  renamedTo?: string;
}

/**
 * The edits that make one Python file's imports resolve in the shuffled tree (repository
 * shuffling, docs/definitions.md §4), given its facts, the repository's module index and the mapping.
 * Only names that resolve to the repository's own modules change; everything else
 * (standard library, third-party, unresolved) is left as written.
 *
 * Forms, and how the name the importing code uses is kept:
 * - `import a.b.c as x` → `import d_….d_….m_… as x`: the alias keeps the binding;
 * - `import a` → `import d_… as a`: the alias is added, so `a.f()` still works;
 * - `import a.b.c` (no alias) binds `a` → `import d_….d_….m_…` binds `d_…`: the attribute
 *   chains rooted at `a` in the same scope (`a.b.c.f()`) are rewritten too, component by
 *   component as long as they name submodules (`d_….d_….m_….f()`);
 * - `from a.b import c, d as e` → the module part renamed; `c`, `d` renamed too when they
 *   are submodules, with `as c` added (`from d_….d_… import m_… as c, m_… as e`) so the names
 *   the code uses stay bound;
 * - relative forms (`from . import x`, `from ..pkg.mod import y`, `from .mod import *`) the
 *   same way, resolved from the file's folder.
 * A submodule name is left alone when the package's `__init__` binds that name to something
 * else (`requests/__init__.py`'s `from .__version__ import __version__` makes
 * `from . import __version__` the version string): the import then still gets that object.
 * Attribute chains rooted at any imported module name are rewritten the same way
 * (`models.fields.Field` after `from django.db import models`), within the scope the import
 * binds in (function, class or module; a name bound in several ways keeps its original
 * root). A bare use of a renamed root (`print(a)` after `import a.b`) is not rewritten.
 *
 * Not rewritten by default: strings naming modules (`importlib.import_module("django.db")`,
 * `INSTALLED_APPS`, `mock.patch("requests.adapters.HTTPAdapter")`) — counted in
 * `dynamicReferences`; with `rewriteDottedStrings` their repository prefix is renamed.
 * Imports inside a parse error are skipped and counted.
 *
 * Pure: no I/O. Cost: linear in the facts.
 */
export function planImportRewrites(
  file: string,
  facts: PythonSourceFacts,
  context: ImportRewriteContext,
): ImportRewrites {
  const { index } = context;
  const stats: ImportRewriteStats = { ...EMPTY_IMPORT_REWRITE_STATS };
  const edits: TextEdit[] = [];
  const shadowCache = context.shadowCache ?? new Map<string, Set<string>>();
  const newName = (step: ModuleStep) => renamedComponent(step, context.lookup);
  const keepBindings = context.keepBindings ?? true;
  const rename = (part: NamePart, to: string, keepAs?: string) => {
    if (to === part.name) return false;
    edits.push({
      start: part.start,
      end: part.end,
      text: keepAs === undefined || !keepBindings ? to : `${to} as ${keepAs}`,
    });
    return true;
  };
  /** An import of a module the tree lacks: rename the leading components that resolve (`prefix`), leave the rest. */
  const renamePrefix = (parts: readonly NamePart[], prefix: readonly ModuleStep[]) => {
    let changed = false;
    prefix.forEach((step, i) => {
      changed = rename(parts[i] as NamePart, newName(step)) || changed;
    });
    if (changed) stats.prefixRenamed += 1;
  };
  /** Whether `name` of package `step` means its submodule for code in `file`. */
  const meansSubmodule = (step: ModuleStep, name: string) => {
    if (step.kind !== "package" || step.init === file) return true;
    let shadowed = shadowCache.get(step.init);
    if (!shadowed) {
      const initFacts = context.factsOf(step.init);
      shadowed = initFacts ? shadowingNames(step.init, initFacts, index) : new Set();
      shadowCache.set(step.init, shadowed);
    }
    return !shadowed.has(name);
  };
  const submodule = (step: ModuleStep, name: string) =>
    meansSubmodule(step, name) ? index.submodule(step, name) : undefined;

  const bindings = new Map<number, Map<string, Binding>>();
  const bind = (scope: number, name: string, binding: Binding) => {
    let names = bindings.get(scope);
    if (!names) bindings.set(scope, (names = new Map()));
    const previous = names.get(name);
    // Bound both kept and renamed in one scope: the kept name is bound, use it.
    const renamedTo = previous && previous.renamedTo !== binding.renamedTo ? undefined : binding.renamedTo;
    names.set(name, { target: binding.target, ...(renamedTo === undefined ? {} : { renamedTo }) });
  };

  for (const fact of facts.imports) {
    if (fact.inError) {
      stats.skippedInErrors += 1;
      continue;
    }
    stats.statements += 1;
    const before = edits.length;
    if (fact.form === "import") {
      for (const module of fact.modules) {
        stats.moduleReferences += 1;
        const names = module.parts.map((part) => part.name);
        const steps = index.resolveAbsolute(file, names);
        if (!steps) {
          if (names[0] === undefined || !index.ownsTopLevel(file, names[0])) continue;
          stats.unresolvedInRepository += 1;
          // The tree lacks the module: rename the components it has, leave the rest.
          const prefix = index.resolveAbsolutePrefix(file, names);
          const [first] = module.parts;
          if (prefix.length === 0 || !first) continue;
          renamePrefix(module.parts, prefix);
          if (!module.alias)
            bind(fact.scope, first.name, {
              target: prefix[0] as ModuleStep,
              renamedTo: newName(prefix[0] as ModuleStep),
            });
          continue;
        }
        stats.inRepository += 1;
        const renamed = steps.map(newName);
        const [first] = module.parts;
        if (!first) continue;
        if (module.alias) {
          module.parts.forEach((part, i) => rename(part, renamed[i] as string));
          bind(fact.scope, module.alias.name, { target: steps.at(-1) as ModuleStep });
        } else if (module.parts.length === 1) {
          rename(first, renamed[0] as string, first.name);
          bind(fact.scope, first.name, { target: steps[0] as ModuleStep });
        } else {
          module.parts.forEach((part, i) => rename(part, renamed[i] as string));
          bind(fact.scope, first.name, { target: steps[0] as ModuleStep, renamedTo: renamed[0] as string });
        }
      }
    } else {
      stats.moduleReferences += 1;
      const components = fact.module.map((part) => part.name);
      let steps: ModuleStep[] | undefined;
      let target: ModuleStep | undefined;
      if (fact.level > 0) {
        const relative = index.resolveRelative(file, fact.level, components);
        steps = relative?.steps;
        target = relative ? (relative.steps.at(-1) ?? relative.base) : undefined;
      } else {
        steps = index.resolveAbsolute(file, components);
        target = steps?.at(-1);
      }
      if (!steps || !target) {
        const first = components[0];
        if (fact.level > 0 || (first !== undefined && index.ownsTopLevel(file, first))) {
          stats.unresolvedInRepository += 1;
          const prefix =
            fact.level > 0
              ? index.resolveRelativePrefix(file, fact.level, components)
              : index.resolveAbsolutePrefix(file, components);
          renamePrefix(fact.module, prefix);
        }
        if (edits.length > before) stats.statementsRewritten += 1;
        continue;
      }
      stats.inRepository += 1;
      const resolved = steps;
      fact.module.forEach((part, i) => rename(part, newName(resolved[i] as ModuleStep)));
      for (const name of fact.names) {
        const [imported] = name.parts;
        if (!imported || name.parts.length !== 1) continue;
        const sub = submodule(target, imported.name);
        if (!sub) continue;
        if (rename(imported, newName(sub), name.alias ? undefined : imported.name)) stats.submoduleNamesRenamed += 1;
        bind(fact.scope, (name.alias ?? imported).name, { target: sub });
      }
    }
    if (edits.length > before) stats.statementsRewritten += 1;
  }

  for (const chain of facts.chains) {
    const [root, ...rest] = chain.parts;
    if (!root) continue;
    const binding = lookUpBinding(bindings, facts.scopes, chain.scope, root.name);
    if (!binding) continue;
    const before = edits.length;
    if (binding.renamedTo !== undefined) rename(root, binding.renamedTo);
    let current = binding.target;
    for (const part of rest) {
      const sub = submodule(current, part.name);
      if (!sub) break;
      rename(part, newName(sub));
      current = sub;
    }
    if (edits.length > before) stats.attributeReferencesRewritten += 1;
  }

  for (const literal of facts.dottedStrings) {
    const components = literal.value.split(".");
    const top = index.resolveAbsolute(file, components.slice(0, 1));
    if (!top) continue;
    const steps = [...top];
    for (const name of components.slice(1)) {
      const sub = submodule(steps.at(-1) as ModuleStep, name);
      if (!sub) break;
      steps.push(sub);
    }
    stats.dynamicReferences += 1;
    if (!context.rewriteDottedStrings) continue;
    const text = [...steps.map(newName), ...components.slice(steps.length)].join(".");
    if (text === literal.value) continue;
    edits.push({ start: literal.start, end: literal.end, text });
    stats.dynamicReferencesRewritten += 1;
  }
  return { edits, stats };
}

/** The binding of `name` seen from `scope`: its own, else the nearest enclosing scope's. */
function lookUpBinding(
  bindings: ReadonlyMap<number, ReadonlyMap<string, Binding>>,
  scopes: PythonSourceFacts["scopes"],
  scope: number,
  name: string,
): Binding | undefined {
  for (let at = scope; at >= 0; at = scopes[at]?.parent ?? -1) {
    const binding = bindings.get(at)?.get(name);
    if (binding) return binding;
  }
  return undefined;
}

/** The shuffled name of one resolved import component: a folder's new name or a module file's new stem. */
function renamedComponent(step: ModuleStep, lookup: ShuffleLookup): string {
  const renamed = step.kind === "module" ? lookup.files.get(step.path) : lookup.directories.get(step.path);
  if (renamed === undefined) throw new Error(`shuffle: ${step.path} resolves an import but is not in the mapping`);
  const name = renamed.slice(renamed.lastIndexOf("/") + 1);
  if (step.kind !== "module") return name;
  const { extension } = splitFileName(step.path.slice(step.path.lastIndexOf("/") + 1));
  return extension === "" ? name : name.slice(0, name.length - extension.length);
}

/** Sums per-file stats. */
export function addImportRewriteStats(total: ImportRewriteStats, more: ImportRewriteStats): ImportRewriteStats {
  const sum = { ...total };
  for (const key of Object.keys(sum) as (keyof ImportRewriteStats)[]) sum[key] += more[key];
  return sum;
}
