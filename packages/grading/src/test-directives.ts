import { parsePatch } from "@loclab/gold";

/** Paths the harness drops from the test command (`NON_TEST_EXTS`; "csv" has no dot there). */
export const NON_TEST_SUFFIXES = [
  ".json",
  ".png",
  "csv",
  ".txt",
  ".md",
  ".jpg",
  ".jpeg",
  ".pkl",
  ".yml",
  ".yaml",
  ".toml",
] as const;

/**
 * The test files named on the test command (`get_test_directives`): each `diff --git a/… b/PATH`
 * of the test patch, minus data files; for django the module form (`tests/` and `.py` dropped,
 * `/` → `.`), as its runner expects.
 */
export function testDirectives(repo: string, testPatch: string): string[] {
  const paths = [...testPatch.matchAll(/diff --git a\/[^\n]* b\/([^\n]*)/g)].map((match) => match[1]!);
  const kept = paths.filter((path) => !NON_TEST_SUFFIXES.some((suffix) => path.endsWith(suffix)));
  if (repo !== "django/django") return kept;
  return kept.map((path) => {
    let module = path.endsWith(".py") ? path.slice(0, -3) : path;
    if (module.startsWith("tests/")) module = module.slice("tests/".length);
    return module.split("/").join(".");
  });
}

/** The files the test patch creates (`get_new_files`, harness #539): removed before and after the tests. */
export function newFiles(patch: string): string[] {
  return parsePatch(patch)
    .filter((file) => file.oldPath === null && file.newPath !== null)
    .map((file) => file.newPath as string);
}

/**
 * The files the test patch changes that exist before it (`get_modified_files`): they are reset
 * to the base commit before and after the tests.
 */
export function modifiedFiles(patch: string): string[] {
  return parsePatch(patch)
    .map((file) => file.oldPath)
    .filter((path): path is string => path !== null);
}
