"""Counts import statements that name a repository's top-level packages, with CPython's parser.

Independent of loclab's tree-sitter rewriting: for repository shuffling (issue 15), an import
whose module path starts with the original top-level package name tells a model the project
even when the rest of the path does not resolve.

Usage: python3 import_leaks.py TREE NAME[,NAME...] [--absent-only]
  TREE: a checkout; NAME: top-level package names (comma separated).
  --absent-only: count only imports whose module does not resolve in TREE (at the root or
  under src/): what shuffling left unrenamed before it renamed the prefixes of absent modules.
Prints one JSON object: {"statements": n, "files": f, "examples": [...]}.
"""

import ast
import json
import os
import sys
import warnings

SKIP = {".git", "__pycache__"}


def resolves(tree, parts):
    for root in ("", "src"):
        base = os.path.join(tree, root, *parts)
        if os.path.isfile(base + ".py") or os.path.isfile(base + ".pyi") or os.path.isdir(base):
            return True
    return False


def main():
    tree, names = sys.argv[1], set(sys.argv[2].split(","))
    absent_only = "--absent-only" in sys.argv[3:]
    statements = 0
    files = 0
    examples = []
    warnings.simplefilter("ignore")
    for folder, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if d not in SKIP]
        for name in filenames:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as handle:
                    module = ast.parse(handle.read())
            except (SyntaxError, ValueError):
                continue
            files += 1
            for node in ast.walk(module):
                modules = []
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                for dotted in modules:
                    parts = dotted.split(".")
                    if parts[0] in names and (not absent_only or not resolves(tree, parts)):
                        statements += 1
                        if len(examples) < 5:
                            examples.append(f"{os.path.relpath(path, tree)}:{node.lineno}: {dotted}")
    print(json.dumps({"statements": statements, "files": files, "examples": examples}))


main()
