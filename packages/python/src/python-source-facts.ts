import type { Node } from "web-tree-sitter";
import type { PythonParser } from "./python-parsers.js";

/** An identifier of the source, with its offsets (UTF-16, `end` exclusive). */
export interface NamePart {
  name: string;
  start: number;
  end: number;
}

/** One imported name: its dotted parts and its `as` alias. */
export interface ImportedName {
  parts: NamePart[];
  alias?: NamePart;
}

interface ImportFactBase {
  /** Offsets of the whole statement. */
  start: number;
  end: number;
  /** 1-based line of the statement. */
  line: number;
  /** Index into `PythonSourceFacts.scopes` of the innermost function, lambda or class around it (0: the module). */
  scope: number;
  /** At module level: not inside a function or a class (inside `if` / `try` still counts). */
  moduleLevel: boolean;
  /** The statement holds or sits inside a parse error: its parts are not trusted. */
  inError: boolean;
}

/** `import a.b.c`, `import a.b as c, d`. */
export interface ImportStatementFact extends ImportFactBase {
  form: "import";
  modules: ImportedName[];
}

/** `from a.b import c, d as e`, `from . import x`, `from ..pkg.mod import *`. */
export interface FromImportFact extends ImportFactBase {
  form: "from";
  /** Leading dots: 0 for an absolute import. */
  level: number;
  /** The module after the dots; empty for `from . import x`. */
  module: NamePart[];
  /** Empty for a wildcard import. */
  names: ImportedName[];
  wildcard: boolean;
}

export type ImportFact = ImportStatementFact | FromImportFact;

/** `a.b.c` in code, where `a` is a name some import of the file binds. */
export interface AttributeChainFact {
  /** The root identifier first, then each attribute name. */
  parts: NamePart[];
  scope: number;
}

/** A string literal whose whole value is a dotted name (`"django.contrib.admin"`). */
export interface DottedStringFact {
  value: string;
  /** Offsets of the value, quotes excluded. */
  start: number;
  end: number;
}

/** A function, lambda or class body (index 0: the module); `parent` is the enclosing scope's index. */
export interface ScopeFact {
  start: number;
  end: number;
  parent: number;
}

/**
 * What repository shuffling needs from one Python file, read once from its syntax tree:
 * imports, the attribute chains rooted at imported names, dotted-name strings, scopes, and
 * the names the module binds at module level other than by import (for `from pkg import x`:
 * is `x` the submodule or something `pkg/__init__.py` defines?).
 */
export interface PythonSourceFacts {
  /** tree-sitter found an error or a missing token somewhere in the file. */
  hasError: boolean;
  imports: ImportFact[];
  chains: AttributeChainFact[];
  dottedStrings: DottedStringFact[];
  scopes: ScopeFact[];
  /** Module-level names bound by `def`, `class`, assignment or a `for` target. */
  definitions: string[];
}

const DOTTED_STRING = /(?<![\w'"])([rRuU]?)(['"])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\2/g;
/** Statements whose bodies still run at module level. */
const MODULE_LEVEL_BLOCKS = new Set([
  "if_statement",
  "elif_clause",
  "else_clause",
  "try_statement",
  "except_clause",
  "except_group_clause",
  "finally_clause",
  "with_statement",
  "while_statement",
  "for_statement",
  "block",
  "match_statement",
  "case_clause",
]);

/**
 * The facts of one Python source (see `PythonSourceFacts`), from a tree-sitter parse with
 * the queries of `loadPythonParser`. tree-sitter recovers from syntax errors: what lies
 * outside an error node is still read; an import that holds or sits inside an error is
 * marked `inError`, and attribute chains inside errors are dropped.
 *
 * Offsets are UTF-16 indices into `source` (what `web-tree-sitter` reports for a string), so
 * they can be used with `String.prototype.slice` directly.
 */
export function pythonSourceFacts(source: string, python: PythonParser): PythonSourceFacts {
  const tree = python.parser.parse(source);
  if (!tree) throw new Error("tree-sitter returned no tree");
  try {
    const root = tree.rootNode;
    const errors: { start: number; end: number }[] = [];
    const scopeNodes: { start: number; end: number }[] = [];
    const importNodes: Node[] = [];
    const rootIdentifiers: Node[] = [];
    for (const { name, node } of python.query.captures(root)) {
      if (name === "error") errors.push({ start: node.startIndex, end: node.endIndex });
      else if (name === "scope" || name === "class") scopeNodes.push({ start: node.startIndex, end: node.endIndex });
      else if (name === "import" || name === "from") importNodes.push(node);
      else if (name === "root") rootIdentifiers.push(node);
    }
    const inError = (start: number, end: number) => errors.some((error) => error.start <= start && end <= error.end);
    const scopes = scopeTree(scopeNodes, source.length);

    const imports: ImportFact[] = [];
    for (const node of importNodes) {
      const scope = scopeAt(scopes, node.startIndex);
      const base: ImportFactBase = {
        start: node.startIndex,
        end: node.endIndex,
        line: node.startPosition.row + 1,
        scope,
        moduleLevel: scope === 0,
        inError: node.hasError || inError(node.startIndex, node.endIndex),
      };
      if (node.type === "import_statement") {
        imports.push({
          ...base,
          form: "import",
          modules: node.namedChildren.flatMap((child) => importedName(child, source)),
        });
      } else {
        imports.push({ ...base, ...fromImport(node, source) });
      }
    }

    const bound = new Set<string>();
    for (const fact of imports) {
      const names = fact.form === "import" ? fact.modules : fact.names;
      for (const name of names) bound.add((name.alias ?? (name.parts[0] as NamePart)).name);
    }
    const chains: AttributeChainFact[] = [];
    for (const identifier of rootIdentifiers) {
      const name = source.slice(identifier.startIndex, identifier.endIndex);
      if (!bound.has(name) || inError(identifier.startIndex, identifier.endIndex)) continue;
      const parts: NamePart[] = [part(identifier, source)];
      let current = identifier.parent;
      while (current && current.type === "attribute") {
        const attribute = current.childForFieldName("attribute");
        if (!attribute) break;
        parts.push(part(attribute, source));
        const parent: Node | null = current.parent;
        if (!parent || parent.type !== "attribute" || parent.childForFieldName("object")?.id !== current.id) break;
        current = parent;
      }
      if (parts.length > 1) chains.push({ parts, scope: scopeAt(scopes, identifier.startIndex) });
    }

    const dottedStrings: DottedStringFact[] = [];
    for (const match of source.matchAll(DOTTED_STRING)) {
      const literalStart = match.index as number;
      const start = literalStart + (match[1] as string).length + 1;
      const value = match[3] as string;
      const end = start + value.length;
      let node: Node | null = root.descendantForIndex(start, end);
      while (node && node.type !== "string" && node.endIndex - node.startIndex <= value.length + 3) node = node.parent;
      if (node?.type === "string" && node.startIndex === literalStart && node.endIndex === end + 1)
        dottedStrings.push({ value, start, end });
    }

    return {
      hasError: root.hasError,
      imports,
      chains,
      dottedStrings,
      scopes,
      definitions: moduleDefinitions(root, source),
    };
  } finally {
    tree.delete();
  }
}

function part(node: Node, source: string): NamePart {
  return { name: source.slice(node.startIndex, node.endIndex), start: node.startIndex, end: node.endIndex };
}

function dottedParts(node: Node, source: string): NamePart[] {
  if (node.type === "identifier") return [part(node, source)];
  return node.namedChildren.filter((child) => child.type === "identifier").map((child) => part(child, source));
}

/** A `dotted_name` or `aliased_import` child of an import; anything else (comments) gives nothing. */
function importedName(node: Node, source: string): ImportedName[] {
  if (node.type === "dotted_name") return [{ parts: dottedParts(node, source) }];
  if (node.type !== "aliased_import") return [];
  const name = node.childForFieldName("name");
  const alias = node.childForFieldName("alias");
  if (!name) return [];
  return [{ parts: dottedParts(name, source), ...(alias ? { alias: part(alias, source) } : {}) }];
}

function fromImport(
  node: Node,
  source: string,
): Pick<FromImportFact, "form" | "level" | "module" | "names" | "wildcard"> {
  const moduleNode = node.childForFieldName("module_name");
  let level = 0;
  let module: NamePart[] = [];
  if (moduleNode?.type === "relative_import") {
    for (const child of moduleNode.namedChildren) {
      if (child.type === "import_prefix") level = child.endIndex - child.startIndex;
      else if (child.type === "dotted_name") module = dottedParts(child, source);
    }
  } else if (moduleNode) {
    module = dottedParts(moduleNode, source);
  }
  const names = node.childrenForFieldName("name").flatMap((child) => importedName(child, source));
  const wildcard = node.namedChildren.some((child) => child.type === "wildcard_import");
  return { form: "from", level, module, names, wildcard };
}

/** Scopes in document order with their parents; index 0 is the module. */
function scopeTree(nodes: readonly { start: number; end: number }[], length: number): ScopeFact[] {
  const sorted = [...nodes].sort((a, b) => a.start - b.start || b.end - a.end);
  const scopes: ScopeFact[] = [{ start: 0, end: length, parent: -1 }];
  const stack = [0];
  for (const node of sorted) {
    while (stack.length > 1 && (scopes[stack.at(-1) as number] as ScopeFact).end < node.end) stack.pop();
    scopes.push({ start: node.start, end: node.end, parent: stack.at(-1) as number });
    stack.push(scopes.length - 1);
  }
  return scopes;
}

/** The innermost scope containing an offset. */
export function scopeAt(scopes: readonly ScopeFact[], at: number): number {
  let low = 0;
  let high = scopes.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((scopes[middle] as ScopeFact).start <= at) low = middle;
    else high = middle - 1;
  }
  let index = low;
  while (index > 0) {
    const scope = scopes[index] as ScopeFact;
    if (scope.start <= at && at < scope.end) return index;
    index = scope.parent;
  }
  return 0;
}

/** Names the module binds at module level by `def`, `class`, assignment or `for`. */
function moduleDefinitions(root: Node, source: string): string[] {
  const names = new Set<string>();
  const targets = (node: Node | null) => {
    if (!node) return;
    if (node.type === "identifier") names.add(source.slice(node.startIndex, node.endIndex));
    else if (
      [
        "pattern_list",
        "tuple_pattern",
        "list_pattern",
        "list_splat_pattern",
        "parenthesized_expression",
        "tuple",
        "list",
      ].includes(node.type)
    ) {
      for (const child of node.namedChildren) targets(child);
    }
  };
  const assignment = (node: Node) => {
    targets(node.childForFieldName("left"));
    const right = node.childForFieldName("right");
    if (right?.type === "assignment") assignment(right);
  };
  const walk = (node: Node) => {
    for (const child of node.namedChildren) {
      switch (child.type) {
        case "function_definition":
        case "class_definition":
          targets(child.childForFieldName("name"));
          break;
        case "decorated_definition":
          targets(child.childForFieldName("definition")?.childForFieldName("name") ?? null);
          break;
        case "expression_statement":
          for (const statement of child.namedChildren)
            if (statement.type === "assignment" || statement.type === "augmented_assignment") assignment(statement);
          break;
        case "for_statement":
          targets(child.childForFieldName("left"));
          walk(child);
          break;
        default:
          if (MODULE_LEVEL_BLOCKS.has(child.type)) walk(child);
      }
    }
  };
  walk(root);
  return [...names];
}
