"""The obvious alternative to loclab's import-graph build: CPython's own `ast` over every .py
file of a tree, collecting each file's import statements (module names and levels), which is
the parsing half of what loclab does (loclab also resolves them to files). Prints one JSON line:
{"files": N, "statements": S, "ms": wall time, "peakRssMiB": peak resident memory}.

    python3 benchmarks/lib/python_import_graph.py /usr/lib/python3/dist-packages/django
"""
import ast
import json
import os
import resource
import sys
import time


def main(root: str) -> None:
    started = time.perf_counter()
    files = 0
    statements = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "__pycache__")]
        for name in names:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                source = handle.read()
            files += 1
            if b"import" not in source:
                continue
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    statements += len(node.names)
                elif isinstance(node, ast.ImportFrom):
                    statements += 1
    ms = (time.perf_counter() - started) * 1000
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"files": files, "statements": statements, "ms": round(ms, 1), "peakRssMiB": round(peak, 1)}))


if __name__ == "__main__":
    main(sys.argv[1])
