/**
 * The repository (cluster) of a SWE-bench-style instance id: the id without its trailing
 * "-<issue number>". Instances of one repository share code, maintainers and test style, so
 * their outcomes are correlated; docs/definitions.md §7 clusters by repository.
 *
 * Definition: id = "<owner>__<repo>-<digits>" → "<owner>__<repo>". Only the last "-<digits>"
 * is removed, so owners and repositories with dashes keep them.
 * Errors: an id without a trailing "-<digits>" (or with nothing before it) throws, naming it.
 * Cost: O(length of id).
 *
 * @example clusterOfInstanceId("django__django-11099") // "django__django"
 * @example clusterOfInstanceId("pylint-dev__pylint-7080") // "pylint-dev__pylint"
 */
export function clusterOfInstanceId(id: string): string {
  const match = /^(.+)-\d+$/.exec(id);
  if (!match) throw new Error(`clusterOfInstanceId requires an id like "owner__repo-123", got ${JSON.stringify(id)}`);
  return match[1] as string;
}
