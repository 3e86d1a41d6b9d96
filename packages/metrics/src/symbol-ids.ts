/**
 * Symbol ids at module and function level (docs/definitions.md §3): `path:Class.method` names a
 * function, `path:TopLevelName` a module-level item. Paths never contain ':'.
 */

/** The module-level id of a function id: `a.py:Class.method` → `a.py:Class`; `a.py:f` → `a.py:f`. */
export function moduleIdOf(functionId: string): string {
  const colon = functionId.indexOf(":");
  if (colon < 0) return functionId;
  const dot = functionId.indexOf(".", colon + 1);
  return dot < 0 ? functionId : functionId.slice(0, dot);
}

/** The symbol name without its path: `a.py:Class.method` → `Class.method`; CoSIL's `a.py::X` → `X`. */
export function symbolNameOf(id: string): string {
  const double = id.indexOf("::");
  if (double >= 0) return id.slice(double + 2);
  const colon = id.indexOf(":");
  return colon < 0 ? id : id.slice(colon + 1);
}

/** Module ids of a ranked list of function ids, in order of first appearance. */
export function moduleRanking(functionIds: readonly string[]): string[] {
  const modules: string[] = [];
  for (const id of functionIds) {
    const module = moduleIdOf(id);
    if (!modules.includes(module)) modules.push(module);
  }
  return modules;
}
