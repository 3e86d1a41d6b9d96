import type { Node } from "web-tree-sitter";
import type { PythonImportParser } from "./python-parsers.js";

/**
 * One imported module as a Python file states it:
 * - `import a.b.c` and `import a.b as x` give `{ form: "import", module: ["a", "b", "c"] }`
 *   (one per name of `import a, b`);
 * - `from ..pkg.mod import x, y as z` gives `{ form: "from", level: 2, module: ["pkg", "mod"],
 *   names: ["x", "y"] }`; `from . import x` has an empty `module`; `from m import *` sets
 *   `wildcard` and has no names; `from __future__ import x` is a `from` import of `__future__`.
 * Aliases are dropped: only what is imported matters here, not the name it is bound to.
 */
export type PythonImport =
  | { form: "import"; line: number; module: string[] }
  | { form: "from"; line: number; level: number; module: string[]; names: string[]; wildcard: boolean };

export interface PythonImportsResult {
  imports: PythonImport[];
  /** tree-sitter met a syntax error somewhere in the file (its imports outside the error are still read). */
  hasError: boolean;
}

/**
 * Every import statement of a Python source, wherever it stands (module level, inside a
 * function, a class, `if TYPE_CHECKING:` or `try:`), in source order, from a tree-sitter
 * parse. Strings and comments that look like imports are not imports: the parser knows.
 *
 * @example pythonImports("from . import x", parser).imports // [{ form: "from", line: 1, level: 1, module: [], names: ["x"], wildcard: false }]
 */
export function pythonImports(source: string, python: PythonImportParser): PythonImportsResult {
  const tree = python.parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const imports: PythonImport[] = [];
    for (const { name, node } of python.imports.captures(tree.rootNode)) {
      const line = node.startPosition.row + 1;
      if (name === "import") {
        for (const child of node.childrenForFieldName("name")) {
          const module = importedModule(child);
          if (module.length > 0) imports.push({ form: "import", line, module });
        }
      } else if (name === "future") {
        imports.push({
          form: "from",
          line,
          level: 0,
          module: ["__future__"],
          names: importedNames(node),
          wildcard: false,
        });
      } else {
        const moduleNode = node.childForFieldName("module_name");
        if (!moduleNode) continue;
        let level = 0;
        let module: string[] = [];
        if (moduleNode.type === "relative_import") {
          for (const child of moduleNode.namedChildren) {
            if (child.type === "import_prefix") level = countDots(child.text);
            else if (child.type === "dotted_name") module = dottedName(child);
          }
        } else module = dottedName(moduleNode);
        const wildcard = node.namedChildren.some((child) => child.type === "wildcard_import");
        imports.push({ form: "from", line, level, module, names: wildcard ? [] : importedNames(node), wildcard });
      }
    }
    return { imports, hasError: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

function importedNames(statement: Node): string[] {
  return statement
    .childrenForFieldName("name")
    .map((child) => importedModule(child).join("."))
    .filter((name) => name !== "");
}

/** The dotted name of a `dotted_name` or `aliased_import` child. */
function importedModule(node: Node): string[] {
  if (node.type === "dotted_name") return dottedName(node);
  if (node.type === "aliased_import") {
    const name = node.childForFieldName("name");
    return name ? dottedName(name) : [];
  }
  return [];
}

function dottedName(node: Node): string[] {
  if (node.type === "identifier") return [node.text];
  return node.namedChildren.filter((child) => child.type === "identifier").map((child) => child.text);
}

function countDots(text: string): number {
  let dots = 0;
  for (const character of text) if (character === ".") dots += 1;
  return dots;
}
