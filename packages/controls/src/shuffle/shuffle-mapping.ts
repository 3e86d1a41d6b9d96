import { z } from "zod";

/**
 * The version of the saved shuffle mapping; bump it when the shape or the drawing changes.
 * Version 3: each entry's name drawn from a generator seeded by the seed and the entry's path
 * (so a name is the same at every commit holding the entry); version 2 drew all names from one
 * xoshiro128** stream in path order (one added file renamed every entry after it); version 1
 * drew them with mulberry32. Mappings and trees of two versions, same seed, do not match.
 */
export const SHUFFLE_MAPPING_SCHEMA_VERSION = 3 as const;

/**
 * The renaming behind one shuffled checkout (repository shuffling, docs/definitions.md §4): every
 * directory and every file of the original tree, repository-relative with `/`, to its name in
 * the shuffled tree. Both records are bijections (no two originals share a shuffled path) and
 * keep the tree's shape: a file's shuffled path is its folder's shuffled path plus its
 * shuffled name. Names on the keep-list map to themselves (`django/__init__.py` →
 * `d_k3x9q2/__init__.py`).
 *
 * The mapping is the key of the control: it is written outside the shuffled tree and never
 * shown to the model. Gold, issue text and predictions go through it (`mapGold`,
 * `mapIssueText`, `unmapPredictions`).
 */
export interface ShuffleMapping {
  schemaVersion: typeof SHUFFLE_MAPPING_SCHEMA_VERSION;
  /** The seed the plan was drawn with (xoshiro128**, `seededRandom`). */
  seed: number;
  /** Original directory → shuffled directory. The root (`""`) is not listed: it is the checkout. */
  directories: Record<string, string>;
  /** Original file → shuffled file (symbolic links included: they are entries too). */
  files: Record<string, string>;
  /** Where the mapping came from, as written by `shuffleRepository`; planning leaves it out. */
  provenance?: ShuffleProvenance;
}

/** How a saved mapping was made (every saved artifact says where it came from). */
export interface ShuffleProvenance {
  tool: string;
  toolVersion: string;
  createdAt: string;
  /** Absolute path of the original checkout. */
  repo: string;
  /** Absolute path of the shuffled copy. */
  out: string;
}

const ProvenanceSchema = z.object({
  tool: z.string(),
  toolVersion: z.string(),
  createdAt: z.string(),
  repo: z.string(),
  out: z.string(),
});

const PathRecord = z.record(z.string().min(1), z.string().min(1));

/**
 * The saved mapping, checked at the boundary: the version, a safe-integer seed, and both
 * records injective (two originals never share a shuffled path), which is what makes
 * `unmapPath` well defined.
 */
export const ShuffleMappingSchema = z
  .object({
    schemaVersion: z.literal(SHUFFLE_MAPPING_SCHEMA_VERSION),
    seed: z.number().int().refine(Number.isSafeInteger, "seed must be a safe integer"),
    directories: PathRecord,
    files: PathRecord,
    provenance: ProvenanceSchema.optional(),
  })
  .superRefine((mapping, context) => {
    // Every path is repository-relative and normalized: the mapping is applied to paths models
    // write, and a key or value that climbs (`../x`) or is absolute would map a path out of the tree.
    const badPath = (path: string) =>
      path.startsWith("/")
        ? "is absolute"
        : path.includes("\0")
          ? "holds a NUL byte"
          : path.split("/").some((segment) => segment === "" || segment === "." || segment === "..")
            ? "is not a normalized relative path (empty, . or .. segments)"
            : undefined;
    const parent = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf("/")));
    for (const key of ["directories", "files"] as const) {
      const seen = new Map<string, string>();
      for (const [original, shuffled] of Object.entries(mapping[key])) {
        const issue = (message: string) => context.addIssue({ code: "custom", path: [key, original], message });
        for (const [side, path] of [
          ["original", original],
          ["shuffled", shuffled],
        ] as const) {
          const problem = badPath(path);
          if (problem) issue(`the ${side} path ${JSON.stringify(path)} ${problem}`);
        }
        // The renaming keeps the tree's shape: an entry's shuffled folder is its folder's shuffled path.
        const folder = parent(original);
        const expected = folder === "" ? "" : mapping.directories[folder];
        if (expected === undefined) issue(`its folder ${JSON.stringify(folder)} is not in directories`);
        else if (parent(shuffled) !== expected)
          issue(
            `${JSON.stringify(shuffled)} is not inside ${JSON.stringify(expected || ".")}, where its folder ${JSON.stringify(folder || ".")} maps to`,
          );
        const other = seen.get(shuffled);
        if (other !== undefined)
          issue(`${original} and ${other} both map to ${shuffled}: a shuffle mapping must be one-to-one`);
        seen.set(shuffled, original);
      }
    }
  });

/**
 * Reads a saved mapping (the parsed JSON of the file `shuffleRepository` wrote), throwing a
 * message that names the first bad field.
 *
 * @example parseShuffleMapping(JSON.parse(readFileSync("django.shuffle.json", "utf8"))).seed // 7
 */
export function parseShuffleMapping(value: unknown): ShuffleMapping {
  const version =
    typeof value === "object" && value !== null ? (value as { schemaVersion?: unknown }).schemaVersion : undefined;
  if (typeof version === "number" && version !== SHUFFLE_MAPPING_SCHEMA_VERSION) {
    throw new Error(
      `a shuffle mapping of schemaVersion ${version} cannot be used: this loclab reads version ${SHUFFLE_MAPPING_SCHEMA_VERSION}` +
        (version < SHUFFLE_MAPPING_SCHEMA_VERSION
          ? " (names are now drawn another way); shuffle the checkout again with this version"
          : " (written by a newer loclab)"),
    );
  }
  const result = ShuffleMappingSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new Error(`not a shuffle mapping${where}: ${issue?.message ?? "invalid"}`);
  }
  return result.data as ShuffleMapping;
}
