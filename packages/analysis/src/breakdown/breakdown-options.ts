import { REPEATED_LINE_THRESHOLD } from "@loclab/schemas";
/** Which tool calls count toward "median calls" and a call budget. */
export interface CountedCalls {
  /** Count only these tool names (the FGL harness: run_command, read_file, edit_file, write_file). */
  only?: readonly string[];
  /** Otherwise count every tool but these. Default: submit, submit_patch, get_status. */
  except?: readonly string[];
}

/** The breakdown's rules, all configurable (docs/definitions.md §8); every field has a default. */
export interface BreakdownOptions {
  calls?: CountedCalls;
  /** A task is out of budget when its counted calls reach this number (FGL: every counted call used). */
  callBudget?: number;
  /** A task is out of budget when its wall-clock seconds reach this number (formats with times). */
  timeLimitSeconds?: number;
  /** AutoCodeRover's conv_round_limit (acr-run-1's conf/vanilla-lite.conf: 10). */
  autoCodeRoverRoundLimit?: number;
  loops?: {
    /** Finish reasons of an output cut at the output-token limit (compared lower-case). Default length, max_tokens. */
    finishReasons?: readonly string[];
    /** An output is a loop when one non-blank line repeats this many times (≥ 3). Default 5. */
    repeatedLine?: number;
    /** "consecutive" (default): in a row, blank lines aside; "anywhere": anywhere in the output. */
    repeatedLineMode?: "consecutive" | "anywhere";
  };
  /** Paths under these prefixes do not exist (FGL: /workspace/src/). Default ["/workspace/src/"]. */
  badPathPrefixes?: readonly string[];
  /**
   * The repository's files per task, when known: any path the task used under a repository
   * root (or relative) that is neither a file nor a folder of it, and that the task did not
   * create itself, is a bad path.
   */
  repositoryFiles?: (instanceId: string) => ReadonlySet<string> | undefined;
  /** Where the repository is checked out in the agents' sandboxes. Default /testbed, /workspace, /repo and /<owner>__<repo>. */
  repositoryRoots?: readonly string[];
  /** A task is a "no file" task with at least this many "No such file" observations. Default 5. */
  noFileThreshold?: number;
}

/** The defaults, spelled out. */
export const DEFAULT_BREAKDOWN_OPTIONS = {
  calls: { except: ["submit", "submit_patch", "get_status"] },
  autoCodeRoverRoundLimit: 10,
  loops: {
    finishReasons: ["length", "max_tokens"],
    repeatedLine: REPEATED_LINE_THRESHOLD,
    repeatedLineMode: "consecutive",
  },
  badPathPrefixes: ["/workspace/src/"],
  repositoryRoots: ["/testbed", "/workspace", "/repo"],
  noFileThreshold: 5,
} as const;
