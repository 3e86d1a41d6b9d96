// The bash scripts the container sandbox runs, one `docker exec` each, arguments as $1…: no
// command line is ever built from a model's text (its command is an argument, never spliced in).

/**
 * A model's command: GNU `timeout` runs it as a background job so that this shell removes the
 * group file after it; timeout leads its own process group, so its pid is the group id (the
 * supervisor's cancel kills that group from a second exec).
 */
export const RUN_SCRIPT =
  'timeout -k 5 "$2" bash -c "$3" & child=$!; echo "$child" > "$1"; wait "$child"; status=$?; rm -f "$1"; exit "$status"';

/** Kills the process group whose id is in file $1. */
export const KILL_GROUP_SCRIPT = 'kill -KILL -- "-$(cat "$1")" 2>/dev/null; true';

/**
 * A window of a text file, read in the container so that only the window crosses (a 2 GB file
 * costs the runner nothing): exit 3 for a directory, 4 for a missing file, 5 for binary (a NUL
 * in its first 8,000 bytes, git's test, or in the window). The first line printed is the file's
 * line count (a last line without a newline counts), then lines $2… ($3 of them) cut at $4 bytes.
 */
export const READ_LINES_SCRIPT = `f="$1"
if [ -d "$f" ]; then exit 3; fi; if [ ! -e "$f" ]; then exit 4; fi; [ -r "$f" ] || { echo "permission denied" >&2; exit 6; }
nuls=$(head -c 8000 -- "$f" | tr -dc '\\000' | wc -c); [ "$nuls" -gt 0 ] && exit 5
lines=$(wc -l < "$f"); if [ -s "$f" ] && [ "$(tail -c 1 -- "$f" | wc -l)" = 0 ]; then lines=$((lines + 1)); fi
echo "$lines"
tail -n "+$2" -- "$f" | head -n "$3" | head -c "$4"`;

/** A whole text file, refused past $2 bytes (exit 7, its size on stdout): exit 3 directory, 4 missing. */
export const READ_FILE_SCRIPT = `f="$1"
if [ -d "$f" ]; then exit 3; fi; if [ ! -e "$f" ]; then exit 4; fi
size=$(stat -c %s -- "$f") || exit 6; if [ "$size" -gt "$2" ]; then echo "$size"; exit 7; fi
exec cat -- "$f"`;

/** Writes staged file $1 to $2 (its directory made; the target's mode kept); exit 3 when $2 is a directory. */
export const WRITE_FILE_SCRIPT =
  'if [ -d "$2" ]; then rm -f "$1"; exit 3; fi; mkdir -p -- "$(dirname -- "$2")" && cat "$1" > "$2"; status=$?; rm -f "$1"; exit $status';

/**
 * The repository's changes against HEAD, new files included, as `git apply` takes them, with a
 * temporary index so the repository's own is never touched. Before anything is hashed, every
 * changed binary file (a NUL in its first 8,000 bytes) over $2 bytes is named on stderr as
 * `oversized <bytes> <path>` and the diff is not taken (exit 5): a 300 MB file left in the
 * repository is never diffed, stored or evaluated.
 */
export const DIFF_SCRIPT = `export GIT_INDEX_FILE="$1"; trap 'rm -f "$1"' EXIT
git read-tree HEAD || exit 9
big=0
while IFS= read -r -d '' entry; do
  path="\${entry:3}"; [ -f "$path" ] && [ ! -L "$path" ] || continue
  size=$(stat -c %s -- "$path"); [ "$size" -gt "$2" ] || continue
  nuls=$(head -c 8000 -- "$path" | tr -dc '\\000' | wc -c)
  if [ "$nuls" -gt 0 ]; then echo "oversized $size $path" >&2; big=1; fi
done < <(git status --porcelain=v1 -z --untracked-files=all)
[ "$big" = 1 ] && exit 5
git add -A && git diff --cached --binary HEAD`;
