import { findMirror, resolveCommitIn, WorkspaceError } from "@loclab/tools";
import { listTree } from "./git-objects.js";

/**
 * The repository's file list at a commit, from its mirror (`git ls-tree -r`, no checkout):
 * regular files and links, repository-relative, in git's order. What path masking needs to
 * tell a mention of a real file from a name that does not exist at base commit.
 */
export async function filesAtCommit(options: { mirrors: string; repo: string; commit: string }): Promise<string[]> {
  const mirror = await findMirror(options.mirrors, options.repo);
  const commit = await resolveCommitIn(mirror, options.commit);
  if (!commit)
    throw new WorkspaceError(
      "unknown-commit",
      `commit ${options.commit} of ${options.repo} is not in the mirror ${mirror.path}`,
    );
  return (await listTree(mirror, commit)).filter((entry) => entry.type === "blob").map((entry) => entry.path);
}
