/**
 * The categories repo_tree can hide, decided from the repository-relative path alone (no
 * file is read), so that the counts are cheap and the same on every run.
 */
export type PathCategory = "hidden" | "vendored" | "tests" | "docs";

/** The order categories are tested in: a file hidden for several reasons is counted once, under the first. */
export const PATH_CATEGORIES: readonly PathCategory[] = ["hidden", "vendored", "tests", "docs"];

const VENDORED_FOLDERS = new Set([
  "vendor",
  "vendors",
  "vendored",
  "_vendor",
  "third_party",
  "third-party",
  "thirdparty",
  "3rdparty",
  "extern",
  "externals",
  "external",
  "node_modules",
  "bower_components",
  "site-packages",
]);
const TEST_FOLDERS = new Set(["test", "tests", "testing", "__tests__", "testcases", "spec", "specs"]);
const TEST_FILE =
  /^(test_.*\.py|.*_tests?\.py|tests?\.py|conftest\.py|.*\.(test|spec)\.[cm]?[jt]sx?|.*_test\.go|.*Tests?\.java)$/;
const DOC_FOLDERS = new Set(["doc", "docs", "documentation", "man"]);
const DOC_FILE = /\.(rst|md|markdown|adoc|asciidoc|rdoc|texi|txt\.rst)$/i;
const MINIFIED = /\.min\.(js|css)$/;

/**
 * The categories of a path, in `PATH_CATEGORIES` order:
 * - `hidden`: some segment starts with `.` (`.github/workflows/ci.yml`, `.pre-commit-config.yaml`);
 * - `vendored`: some folder is named vendor, vendored, _vendor, third_party, third-party,
 *   thirdparty, 3rdparty, extern, external(s), node_modules, bower_components or
 *   site-packages, or the file is minified (`*.min.js`, `*.min.css`);
 * - `tests`: some folder is named test, tests, testing, __tests__, testcases, spec(s), or the
 *   file name is a test file by the usual conventions (`test_*.py`, `*_test.py`,
 *   `*_tests.py`, `tests.py`, `conftest.py`, `*.test.js`, `*.spec.ts`, `*_test.go`, `*Test.java`);
 * - `docs`: some folder is named doc, docs, documentation or man, or the file is prose
 *   markup (`.rst`, `.md`, `.markdown`, `.adoc`, `.asciidoc`, `.rdoc`, `.texi`).
 * Folder names compare case-insensitively; file-name patterns as written.
 *
 * @example pathCategories("django/contrib/admin/static/admin/js/vendor/xregexp/xregexp.js") // ["vendored"]
 */
export function pathCategories(path: string): PathCategory[] {
  return [...knownPathCategories(path)];
}

/** `pathCategories` remembered (bounded): every repo_tree call asks again for every path of the tree. The array is shared: do not change it. */
export function knownPathCategories(path: string): readonly PathCategory[] {
  let known = categoriesCache.get(path);
  if (!known) {
    if (categoriesCache.size >= MAX_CACHED_PATHS) categoriesCache.clear();
    known = Object.freeze(computeCategories(path));
    categoriesCache.set(path, known);
  }
  return known;
}

const MAX_CACHED_PATHS = 500_000;
const categoriesCache = new Map<string, readonly PathCategory[]>();

function computeCategories(path: string): PathCategory[] {
  const segments = path.split("/");
  const name = segments[segments.length - 1] as string;
  const folders = segments.slice(0, -1).map((segment) => segment.toLowerCase());
  const categories: PathCategory[] = [];
  if (segments.some((segment) => segment.startsWith("."))) categories.push("hidden");
  if (folders.some((folder) => VENDORED_FOLDERS.has(folder)) || MINIFIED.test(name)) categories.push("vendored");
  if (folders.some((folder) => TEST_FOLDERS.has(folder)) || TEST_FILE.test(name)) categories.push("tests");
  if (folders.some((folder) => DOC_FOLDERS.has(folder)) || DOC_FILE.test(name)) categories.push("docs");
  return categories;
}
