import type { Node, Parser } from "web-tree-sitter";

/** A function, method or class of a Python source (the shape @loclab/gold's `SourceDefinition` reads). */
export interface PythonDefinition {
  /** Dotted from the outermost definition: `Class.method.inner`. */
  qualifiedName: string;
  kind: "function" | "class";
  /** 1-based, inclusive; the first decorator's line when decorated. */
  startLine: number;
  /** The line of the definition's last character. */
  endLine: number;
  /** Column (characters) of the definition's first line. */
  indent: number;
}

/** Statements that hold no definition: not descended into. */
const SIMPLE_STATEMENTS = new Set([
  "expression_statement",
  "import_statement",
  "import_from_statement",
  "future_import_statement",
  "return_statement",
  "pass_statement",
  "raise_statement",
  "assert_statement",
  "delete_statement",
  "global_statement",
  "nonlocal_statement",
  "break_statement",
  "continue_statement",
  "comment",
]);

/**
 * Every function (`def`, `async def`) and class of a Python source, nested ones named through
 * their parents (`Class.method.inner`), each with its line range from its first decorator to
 * its last character: what exact gold symbols (docs/definitions.md §2) are attributed to.
 * Definitions inside `if`/`try`/`with` blocks count, with the names around them unchanged.
 * tree-sitter recovers from syntax errors, so a file with an error still gives the definitions
 * it can see. Any parser set to Python will do (`loadPythonImportParser().parser`); it is
 * used before this returns, so it can be shared.
 *
 * @example pythonDefinitions("class A:\n    def f(self):\n        pass\n", parser).map((d) => d.qualifiedName) // ["A", "A.f"]
 */
export function pythonDefinitions(text: string, parser: Parser): PythonDefinition[] {
  const tree = parser.parse(text);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const definitions: PythonDefinition[] = [];
    const visit = (node: Node, prefix: string) => {
      for (const child of node.namedChildren) {
        if (!child) continue;
        const definition = child.type === "decorated_definition" ? child.childForFieldName("definition") : child;
        if (definition && (definition.type === "function_definition" || definition.type === "class_definition")) {
          const name = definition.childForFieldName("name")?.text;
          if (name) {
            const qualifiedName = prefix ? `${prefix}.${name}` : name;
            definitions.push({
              qualifiedName,
              kind: definition.type === "class_definition" ? "class" : "function",
              startLine: child.startPosition.row + 1,
              endLine:
                child.endPosition.column === 0 && child.endPosition.row > child.startPosition.row
                  ? child.endPosition.row
                  : child.endPosition.row + 1,
              indent: child.startPosition.column,
            });
            const body = definition.childForFieldName("body");
            if (body) visit(body, qualifiedName);
            continue;
          }
        }
        if (!SIMPLE_STATEMENTS.has(child.type)) visit(child, prefix);
      }
    };
    visit(tree.rootNode, "");
    return definitions;
  } finally {
    tree.delete();
  }
}
