/**
 * One repository × version of the harness's `MAP_REPO_VERSION_TO_SPECS`: how its environment is
 * made and its tests run. `packages` is a conda package list, or "requirements.txt" /
 * "environment.yml" (read from the repository at the instance's environment_setup_commit).
 */
export interface HarnessSpec {
  python: string;
  packages?: string;
  pip_packages?: string[];
  pre_install?: string[];
  install?: string;
  eval_commands?: string[];
  test_cmd: string | string[];
  no_use_env?: boolean;
  nano_cpus?: number;
  execute_test_as_nonroot?: boolean;
  /** loclab's addition for repositories the harness does not know: the log parser by name. */
  parser?: string;
}

export interface HarnessSpecsData {
  harness: { package: string; version: string };
  specs: Record<string, Record<string, HarnessSpec>>;
  requirementsPaths: Record<string, string[]>;
  environmentPaths: Record<string, string[]>;
  replaceRequirementPackages: [string, string | null][];
}
