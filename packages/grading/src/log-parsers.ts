import { PY_WHITESPACE, pyLstrip, pySplit, pyStrip } from "./python-text.js";
import { endsWithStatus, startsWithStatus, type StatusMap } from "./test-status.js";

// The SWE-bench harness's log parsers (v4.1.0 `harness/log_parsers/python.py`), rule for rule,
// quirks included: the datasets' FAIL_TO_PASS / PASS_TO_PASS names were produced by these
// rules, so a "fixed" parser would fail tests the harness passes (a name with a space is cut at
// it; `SKIPPED [1] file:line: reason` adds a key "[1]"; an XPASS line is no result). Checked
// against the official package's answers in test/parsers.test.ts.

export type LogParser = (log: string) => StatusMap;

/** `FAILED a - reason` → `FAILED a reason`, then status = first token, name = second. */
function pytestLine(line: string): [name: string, status: string] | undefined {
  const text = line.startsWith("FAILED") ? line.split(" - ").join(" ") : line;
  const tokens = pySplit(text);
  return tokens.length >= 2 ? [tokens[1]!, tokens[0]!] : undefined;
}

/** flask, xarray, pytest-dev, and the other plain pytest repositories. */
export const parsePytest: LogParser = (log) => {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    if (!startsWithStatus(line)) continue;
    const entry = pytestLine(line);
    if (entry) map.set(entry[0], entry[1]);
  }
  return map;
};

const OPTION = /([^\n]*?)\[([^\n]*)\]/;

/**
 * requests, pylint: the pytest rule, with a parameter that is an absolute path shortened to its
 * last segment (the datasets were made on another machine's paths). As in Python's
 * `re.search`, text after the last `]` is dropped.
 */
export const parsePytestOptions: LogParser = (log) => {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    if (!startsWithStatus(line)) continue;
    const entry = pytestLine(line);
    if (!entry) continue;
    const [token, status] = entry;
    const option = OPTION.exec(token);
    if (!option) {
      map.set(token, status);
      continue;
    }
    let [, main, value] = option as unknown as [string, string, string];
    if (value.startsWith("/") && !value.startsWith("//") && !value.includes("*")) value = `/${value.split("/").at(-1)}`;
    map.set(`${main}[${value}]`, status);
  }
  return map;
};

// Python's `\d` in a str pattern is any Unicode decimal digit.
const COLOUR = /\[\p{Nd}+m/gu;
const CONTROL = /[\x01-\x1f]/g;

/**
 * astropy, scikit-learn, sphinx: colour codes and every control character (tabs too) removed
 * first; a line that ends with a status (older pytest's `path::test PASSED`) is read the other
 * way round.
 */
export const parsePytestV2: LogParser = (log) => {
  const map: StatusMap = new Map();
  for (const raw of log.split("\n")) {
    const line = raw.replace(COLOUR, "").replace(CONTROL, "");
    if (startsWithStatus(line)) {
      const entry = pytestLine(line);
      if (entry) map.set(entry[0], entry[1]);
    } else if (endsWithStatus(line)) {
      const tokens = pySplit(line);
      if (tokens.length >= 2) map.set(tokens[0]!, tokens[1]!);
    }
  }
  return map;
};

/** matplotlib: the pytest rule after `MouseButton.LEFT` → 1 and `MouseButton.RIGHT` → 3. */
export const parseMatplotlib: LogParser = (log) =>
  parsePytest(
    log
      .split("\n")
      .map((line) => line.split("MouseButton.LEFT").join("1").split("MouseButton.RIGHT").join("3"))
      .join("\n"),
  );

/**
 * seaborn: FAILED lines, `name PASSED …` lines, then `PASSED name` lines. A bare `FAILED` or
 * `PASSED` line makes the harness raise (an index error); here it is no result.
 */
export const parseSeaborn: LogParser = (log) => {
  const map: StatusMap = new Map();
  for (const line of log.split("\n")) {
    if (line.startsWith("FAILED")) {
      const name = pySplit(line)[1];
      if (name !== undefined) map.set(name, "FAILED");
    } else if (line.includes(" PASSED ")) {
      const parts = pySplit(line);
      if (parts[1] === "PASSED") map.set(parts[0]!, "PASSED");
    } else if (line.startsWith("PASSED")) {
      const name = pySplit(line)[1];
      if (name !== undefined) map.set(name, "PASSED");
    }
  }
  return map;
};

const PASS_SUFFIXES = [" ... ok", " ... OK", " ...  OK"];
// The harness's three multiline patterns for output that interrupts a django result line.
// Python's MULTILINE `^`/`$` are only at "\n" (JavaScript's `m` flag also breaks at \r and
// U+2028), its `.` excludes only "\n", its `\s` is its own whitespace set, and `(?s:.*?)` is
// `[\s\S]*?`.
const S = `[${PY_WHITESPACE}]`;
const BOL = "(?<=^|\\n)";
const EOL = "(?=\\n|$)";
const DJANGO_INTERRUPTED = [
  new RegExp(
    `${BOL}([^\\n]*?)${S}\\.\\.\\.${S}Testing against Django installed in ([\\s\\S]*?) silenced\\)\\.\\nok${EOL}`,
    "g",
  ),
  new RegExp(`${BOL}([^\\n]*?)${S}\\.\\.\\.${S}Internal Server Error: \\/([^\\n]*)\\/\\nok${EOL}`, "g"),
  new RegExp(`${BOL}([^\\n]*?)${S}\\.\\.\\.${S}System check identified no issues \\(0 silenced\\)\\nok${EOL}`, "g"),
];

/** django's test runner at verbosity 2: `name ... ok|FAIL|ERROR|skipped`, `FAIL: name`, a late `ok`. */
export const parseDjango: LogParser = (log) => {
  const map: StatusMap = new Map();
  let previous: string | undefined;
  for (const raw of log.split("\n")) {
    let line = pyStrip(raw);
    if (line.includes("--version is equivalent to version")) map.set("--version is equivalent to version", "PASSED");
    if (line.includes(" ... ")) previous = line.split(" ... ")[0]!;
    for (const suffix of PASS_SUFFIXES) {
      if (!line.endsWith(suffix)) continue;
      // The harness's own special case for django__django-7188 (a migration message on the line).
      if (line.startsWith("Applying sites.0002_alter_domain_unique...test_no_migrations"))
        line = pyStrip(line.slice(line.indexOf("...") + 3));
      map.set(line.slice(0, line.lastIndexOf(suffix)), "PASSED");
      break;
    }
    if (line.includes(" ... skipped")) map.set(line.split(" ... skipped")[0]!, "SKIPPED");
    if (line.endsWith(" ... FAIL")) map.set(line.split(" ... FAIL")[0]!, "FAILED");
    if (line.startsWith("FAIL:")) {
      const name = pySplit(line)[1];
      if (name !== undefined) map.set(pyStrip(name), "FAILED");
    }
    if (line.endsWith(" ... ERROR")) map.set(line.split(" ... ERROR")[0]!, "ERROR");
    if (line.startsWith("ERROR:")) {
      const name = pySplit(line)[1];
      if (name !== undefined) map.set(pyStrip(name), "ERROR");
    }
    if (pyLstrip(line).startsWith("ok") && previous !== undefined) map.set(previous, "PASSED");
  }
  for (const pattern of DJANGO_INTERRUPTED) for (const match of log.matchAll(pattern)) map.set(match[1]!, "PASSED");
  return map;
};

const SYMPY_FAILURE_HEADER = /(_*) ([^\n]*)\.py:([^\n]*) (_*)/g;

/** sympy's bin/test: `____ file.py:test_name ____` headers fail, `test_x ok|F|E` lines. */
export const parseSympy: LogParser = (log) => {
  const map: StatusMap = new Map();
  for (const match of log.matchAll(SYMPY_FAILURE_HEADER)) map.set(`${match[2]}.py:${match[3]}`, "FAILED");
  for (const raw of log.split("\n")) {
    const line = pyStrip(raw);
    if (!line.startsWith("test_")) continue;
    const name = pySplit(line)[0]!;
    if (line.endsWith(" E")) map.set(name, "ERROR");
    if (line.endsWith(" F")) map.set(name, "FAILED");
    if (line.endsWith(" ok")) map.set(name, "PASSED");
  }
  return map;
};

/** The parser the harness maps each repository to (`MAP_REPO_TO_PARSER_PY`). */
export const PARSER_FOR_REPO: Readonly<Record<string, { name: string; parse: LogParser }>> = {
  "astropy/astropy": { name: "pytest_v2", parse: parsePytestV2 },
  "django/django": { name: "django", parse: parseDjango },
  "marshmallow-code/marshmallow": { name: "pytest", parse: parsePytest },
  "matplotlib/matplotlib": { name: "matplotlib", parse: parseMatplotlib },
  "mwaskom/seaborn": { name: "seaborn", parse: parseSeaborn },
  "pallets/flask": { name: "pytest", parse: parsePytest },
  "psf/requests": { name: "pytest_options", parse: parsePytestOptions },
  "pvlib/pvlib-python": { name: "pytest", parse: parsePytest },
  "pydata/xarray": { name: "pytest", parse: parsePytest },
  "pydicom/pydicom": { name: "pytest_options", parse: parsePytestOptions },
  "pylint-dev/astroid": { name: "pytest", parse: parsePytest },
  "pylint-dev/pylint": { name: "pytest_options", parse: parsePytestOptions },
  "pytest-dev/pytest": { name: "pytest", parse: parsePytest },
  "pyvista/pyvista": { name: "pytest", parse: parsePytest },
  "scikit-learn/scikit-learn": { name: "pytest_v2", parse: parsePytestV2 },
  "sqlfluff/sqlfluff": { name: "pytest", parse: parsePytest },
  "sphinx-doc/sphinx": { name: "pytest_v2", parse: parsePytestV2 },
  "sympy/sympy": { name: "sympy", parse: parseSympy },
};

export class UnknownRepositoryError extends Error {
  constructor(repo: string) {
    super(`no SWE-bench log parser for repository "${repo}" (known: ${Object.keys(PARSER_FOR_REPO).join(", ")})`);
    this.name = "UnknownRepositoryError";
  }
}

export function parserFor(repo: string): { name: string; parse: LogParser } {
  const parser = PARSER_FOR_REPO[repo];
  if (!parser) throw new UnknownRepositoryError(repo);
  return parser;
}

const PARSERS_BY_NAME: Readonly<Record<string, LogParser>> = {
  pytest: parsePytest,
  pytest_options: parsePytestOptions,
  pytest_v2: parsePytestV2,
  matplotlib: parseMatplotlib,
  seaborn: parseSeaborn,
  django: parseDjango,
  sympy: parseSympy,
};

/** The parsers' names, for a spec's `parser`. */
export const PARSER_NAMES: readonly string[] = Object.keys(PARSERS_BY_NAME);

/** A parser by its name (`pytest`, `pytest_options`, `pytest_v2`, `matplotlib`, `seaborn`, `django`, `sympy`), for a repository the harness does not know. */
export function parserByName(name: string): { name: string; parse: LogParser } {
  const parse = PARSERS_BY_NAME[name];
  if (!parse) throw new Error(`no log parser named "${name}" (known: ${Object.keys(PARSERS_BY_NAME).join(", ")})`);
  return { name, parse };
}
