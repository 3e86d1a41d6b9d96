import { type FixtureFile, temporaryDir, writeTree } from "./helpers.js";

/** 400 numbered lines `line 1` … `line 400`. */
export const LONG_FILE = `${Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n")}\n`;

/**
 * A small repository with one file for each case the tools distinguish: a src layout with
 * packages, absolute and relative imports, tests, docs, vendored and hidden files, a binary
 * file, a CRLF file, a Latin-1 file, a very long line, a large file and symbolic links.
 */
export const SAMPLE_FILES: Record<string, FixtureFile> = {
  "README.md": "# Sample\nSee src/app.\n",
  "setup.py": "from setuptools import setup\nsetup(name='app')\n",
  "docs/index.rst": "Sample docs\n===========\nCall app.core.run().\n",
  "src/app/__init__.py": "from .core import run\nfrom . import utils\n__all__ = ['run']\n",
  "src/app/core.py": [
    "import os",
    "import json as j",
    "from app.utils import text, helpers",
    "from app.utils.text import slugify",
    "from .models import Model",
    "from ..outside import nothing",
    "",
    "",
    "def run(name):",
    "    from app import config  # a lazy import",
    "    return slugify(name) + os.sep",
    "",
    "# import fake  (a comment, not an import)",
    "DOC = '''",
    "import not_an_import",
    "'''",
    "",
  ].join("\n"),
  "src/app/models.py": "from app.utils import *\n\nclass Model:\n    name = 'Model'\n",
  "src/app/config.py": "DEBUG = False\n",
  "src/app/utils/__init__.py": "from .text import slugify\n",
  "src/app/utils/text.py": "import re\n\n\ndef slugify(value):\n    return re.sub(r'[^a-z]+', '-', value.lower())\n",
  "src/app/utils/helpers.py":
    "from app.utils.text import slugify as s\nfrom app.missing import gone\nimport app.utils.nothing_here\n",
  "src/app/Views.py": "from app import core\nVIEW = 'Views'\n",
  "src/app/views_test_helpers.py": "VALUE = 1\n",
  "tests/test_core.py": "from app.core import run\n\n\ndef test_run():\n    assert run('A b') == 'a-b/'\n",
  "tests/conftest.py": "import pytest\n",
  "vendor/lib.min.js": "function a(){return 1}\n",
  "vendor/lib.js": "function a() {\n  return 1;\n}\n",
  ".github/workflows/ci.yml": "name: ci\non: push\n",
  ".hidden_notes.txt": "run the hidden thing\n",
  "data/blob.bin": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x72, 0x75, 0x6e, 0x0a]),
  "data/windows.txt": "first run\r\nsecond RUN\r\nthird\r\n",
  "data/latin1.txt": Buffer.from("caf\xe9 run\nna\xefve\n", "latin1"),
  "data/long_line.txt": `${"x".repeat(25_000)} needle ${"y".repeat(100)}\nshort line\n`,
  "data/long.txt": LONG_FILE,
  "data/empty.txt": "",
  "data/no_final_newline.txt": "alpha\nbeta",
  "data/unicode.txt": "Straße ÉCOLE école\nİstanbul\n",
  "links/inside.py": { symlink: "../src/app/config.py" },
  "links/outside.txt": { symlink: "/etc/hostname" },
  "links/outside_dir": { symlink: "/etc" },
};

/** Writes the sample repository into a fresh temporary folder and returns its path. */
export function writeSampleRepo(extra: Record<string, FixtureFile> = {}): string {
  return writeTree(temporaryDir("loclab-sample-"), { ...SAMPLE_FILES, ...extra });
}
