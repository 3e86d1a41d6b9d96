"""Reference import graph for @loclab/tools' connected_tree, from Python's own `ast` module.

Usage: python3 python_import_graph.py ROOT  ->  JSON on stdout:
  {"files": {path: {"targets": [...], "external": [...]}}, "syntaxErrors": [...], "parsed": N}

Written independently of the TypeScript resolver, from the rules documented on
`PythonModuleResolver` (packages/tools/src/python-modules.ts):
- files: every regular file and symlink under ROOT (".git" skipped, folder links not followed);
- absolute imports start at the file's own root (nearest folder above it that is not a
  package), then src/ and lib/ (top-level, not packages), then the repository root; a regular
  package or module at any root beats a namespace folder; when ROOT itself has __init__.py,
  absolute names start with ROOT's folder name instead;
- inside a folder: package (name/__init__.py or .pyi), then name.py, .pyi, .pyx, then the folder;
- `import a.b.c` -> deepest of a, a.b, a.b.c with a file; `from m import x` -> m.x when m
  resolves completely to a package that has it, else m's deepest file; `from m import *` -> m;
- self-imports dropped; unresolved imports listed as written ("os.path", "..gone", ".x").
"""
import ast
import json
import os
import sys

SUFFIXES = (".py", ".pyi", ".pyx")
INITS = ("__init__.py", "__init__.pyi")
PARENT = object()


def list_files(root):
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(folder, d))]
        rel = os.path.relpath(folder, root)
        for name in names + [d for d in os.listdir(folder) if os.path.islink(os.path.join(folder, d)) and os.path.isdir(os.path.join(folder, d))]:
            if name == ".git":
                continue
            full = os.path.join(folder, name)
            if os.path.isfile(full) or os.path.islink(full):
                files.append(name if rel == "." else rel.replace(os.sep, "/") + "/" + name)
    return sorted(set(files))


class Resolver:
    def __init__(self, files, root_name):
        self.files = set(files)
        self.folders = {""}
        for f in files:
            parts = f.split("/")
            for i in range(1, len(parts)):
                self.folders.add("/".join(parts[:i]))
        self.root_package = root_name if self.init_of("") else None
        self.layouts = [] if self.root_package else [d for d in ("src", "lib") if d in self.folders and not self.init_of(d)]

    def init_of(self, folder):
        if folder is PARENT:
            return None
        for name in INITS:
            path = name if folder == "" else folder + "/" + name
            if path in self.files:
                return path
        return None

    def child(self, folder, name):
        """(kind, folder_or_file, file) or None."""
        if folder is PARENT:
            return ("package", "", self.init_of("")) if name == self.root_package else None
        path = name if folder == "" else folder + "/" + name
        init = self.init_of(path)
        if init:
            return ("package", path, init)
        for suffix in SUFFIXES:
            if path + suffix in self.files:
                return ("module", path + suffix, path + suffix)
        if path in self.folders:
            return ("namespace", path, None)
        return None

    def roots(self, file):
        own = os.path.dirname(file)
        while own is not PARENT and self.init_of(own):
            own = PARENT if own == "" else os.path.dirname(own)
        if own is PARENT and not self.root_package:
            own = ""
        candidates = [own, PARENT] if self.root_package else [own] + self.layouts + [""]
        out = []
        for c in candidates:
            if not any(c is o or (c is not PARENT and o is not PARENT and c == o) for o in out):
                out.append(c)
        return out

    def resolve_module(self, file, level, parts):
        if level == 0:
            if not parts:
                return None
            roots = self.roots(file)
            start = next((s for s in (self.child(r, parts[0]) for r in roots) if s and s[0] != "namespace"), None)
            if start is None:
                start = next((s for s in (self.child(r, parts[0]) for r in roots) if s), None)
            rest = parts[1:]
        else:
            folder = os.path.dirname(file)
            for _ in range(level - 1):
                if folder is PARENT:
                    return None
                if folder == "":
                    if not self.root_package:
                        return None
                    folder = PARENT
                else:
                    folder = os.path.dirname(folder)
            if folder is PARENT:
                start = self.child(PARENT, parts[0]) if parts else None
                rest = parts[1:]
            else:
                init = self.init_of(folder)
                start = ("package", folder, init) if init else ("namespace", folder, None)
                rest = parts
        if start is None:
            return None
        steps = [start]
        for name in rest:
            current = steps[-1]
            nxt = None if current[0] == "module" else self.child(current[1], name)
            if nxt is None:
                return steps, False
            steps.append(nxt)
        return steps, True


def deepest(steps):
    for step in reversed(steps):
        if step[2]:
            return step[2]
    return None


def graph(root):
    files = list_files(root)
    resolver = Resolver(files, os.path.basename(os.path.normpath(root)))
    out, errors, parsed = {}, [], 0
    for file in files:
        if not file.endswith(".py"):
            continue
        full = os.path.join(root, file)
        try:
            with open(full, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        try:
            tree = ast.parse(data.decode("utf-8", "replace"), filename=file)
        except SyntaxError:
            errors.append(file)
            continue
        parsed += 1
        targets, external = set(), set()

        def add(target, name):
            if target is None:
                external.add(name)
            elif target != file:
                targets.add(target)

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    r = resolver.resolve_module(file, 0, parts)
                    add(r and deepest(r[0]), alias.name)
            elif isinstance(node, ast.ImportFrom):
                level = node.level or 0
                parts = node.module.split(".") if node.module else []
                dots = "." * level
                written = dots + ".".join(parts)
                names = [a.name for a in node.names]
                wildcard = names == ["*"]
                r = resolver.resolve_module(file, level, parts)
                fallback = r and deepest(r[0])
                if not parts and (wildcard or not names):
                    add(fallback, written)
                elif wildcard or r is None or not r[1]:
                    if parts:
                        add(fallback, written)
                    else:
                        for name in names:
                            add(fallback, dots + name)
                else:
                    last = r[0][-1]
                    for name in names:
                        sub = None if last[0] == "module" else resolver.child(last[1], name)
                        add((sub and sub[2]) or fallback, written if parts else dots + name)
        if targets or external:
            out[file] = {"targets": sorted(targets), "external": sorted(external)}
    return {"files": out, "syntaxErrors": errors, "parsed": parsed}


if __name__ == "__main__":
    json.dump(graph(sys.argv[1]), sys.stdout, sort_keys=True)
