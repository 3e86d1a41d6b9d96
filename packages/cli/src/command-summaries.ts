/**
 * The one-line summary of every top-level command, as `loclab --help` lists them. They live
 * apart from the command modules so that the help lists every command without importing any
 * of them (see command-index.ts); each module takes its own summary from here.
 */
export const COMMAND_SUMMARIES = {
  datasets: "list the bundled benchmark datasets and where their files are",
  gold: "print the gold locations (files, created files, line spans, exact symbols with --repos) of a benchmark's patches",
  mirrors: "bare git mirrors of a benchmark's repositories: fetch them, check them",
  demo: "write a small benchmark with real git mirrors to try a run on, nothing downloaded",
  cache: "the workspace cache runs share: list it, clear it",
  fgl: "fixer-guided localization: candidates, scoring by a frozen fixer, weights, training records, the offline signal test",
  score: "score a localizer's predictions against a benchmark's gold (docs/definitions.md §3)",
  mcnemar: "exact McNemar test from the discordant counts b (A only) and c (B only)",
  compare: "exact McNemar tests: every pair of systems of a resolved matrix, or two localization runs metric by metric",
  power: "sample size or minimum detectable effect for paired binary outcomes (Connor 1987)",
  mask: "mask mentions of repository files in a benchmark's issue texts (path-masking control)",
  shuffle: "write a seeded, renamed copy of a checkout with every Python import rewritten, and the mapping",
  unshuffle: "map a loclab predictions file made on a shuffled tree back to the original names",
  tool: "run one of the localizer's tools (view, search, tree, imports) on a local checkout",
  breakdown:
    "failure breakdown of agent trajectories with paired tests against a base (§8), or of a loclab localization run by exit (loclab breakdown RUN_DIR, §10)",
  localize:
    "run the localizer over a benchmark against one model endpoint: a one-cell loclab run (docs/definitions.md §1, §8)",
  run: "run the localizer over seeds × controls × instances across a pool of model servers (docs/definitions.md §10); kind: repair runs the fixer in each task's container and evaluates every final patch (§9)",
  status:
    "the state of a run, finished or not: per cell done / predicted / outcomes, per endpoint attempts and tokens, the runner holding it",
  worker:
    "take attempt jobs of distributed runs (loclab run SPEC --queue) from a BullMQ queue on Redis and run them here; results go back to the coordinator",
  report:
    "write a static site of a run folder (or of imported trajectories): overview, instances, pairs, trajectories with the gold overlay; opens from disk",
  view: "serve the site of a run folder on 127.0.0.1, refreshed while the run goes on",
  serve: "serve a local GGUF model on CPU over vLLM's OpenAI-compatible API subset",
  vllm: "plan, start, probe and stop vLLM servers on a GPU host (4×L4: one per GPU, or one with TP=4)",
  evaluate:
    "evaluate patches in containers, as the SWE-bench harness does (report.json, run summary); grade one log offline; calibrate flaky tests and validate images; list and prune the local images",
  setup:
    "install what some runs need besides npm's: mini-swe-agent (pinned, from the Python package index) in the project's own virtual environment",
  reproduce: "run the main job on the bundled data and write its tables and charts to results/",
} as const;

/** Every top-level command name. */
export type CommandName = keyof typeof COMMAND_SUMMARIES;

/** The summary of a top-level command, as `loclab --help` lists it. */
export function summaryOf(name: CommandName): string {
  return COMMAND_SUMMARIES[name];
}
