import { join } from "node:path";
import { buildCalcFixture, CALC_FILES, CALC_FINDING, CALC_FUNCTION_SPAN, CALC_ISSUE } from "@loclab/fixtures";

/** The calc fixture (@loclab/fixtures): a small Python package, real git, with a planted bug in `average`. */
export const FIXTURE_FILES = CALC_FILES;
export const FIXTURE_ISSUE = { instance_id: CALC_ISSUE.instance_id, problem_statement: CALC_ISSUE.problem_statement };
export const FIXTURE_FINDING = CALC_FINDING;
export const FIXTURE_SPAN = CALC_FUNCTION_SPAN;

/** The fixture's work tree (`root`, a real git repository at the base commit) and `runs` for trajectories beside it; `dispose` removes both. */
export async function makeFixtureRepo(): Promise<{ root: string; runs: string; dispose(): Promise<void> }> {
  const fixture = await buildCalcFixture();
  return { root: fixture.source, runs: join(fixture.source, "..", "runs"), dispose: fixture.dispose };
}
