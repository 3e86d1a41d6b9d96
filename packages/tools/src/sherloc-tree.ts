/**
 * SHERLOC's repository tree (`RepoManager.tree_repo_dict`): `.` then one line per folder and
 * file, children by name (SHERLOC's snapshots are built from a sorted walk), `|-- ` before an
 * entry and `└── ` before the last of its folder, `|   ` / `    ` below; no depth limit; a file
 * with its line count when `lineCounts` is given (`show_line_counts`, off by default).
 *
 * @example renderSherlocTree(["pkg/__init__.py", "pkg/cache.py", "setup.py"])
 * // ".\n|-- pkg\n|   |-- __init__.py\n|   └── cache.py\n└── setup.py"
 */
export function renderSherlocTree(
  paths: readonly string[],
  options: { lineCounts?: ReadonlyMap<string, number> } = {},
): string {
  interface Folder {
    folders: Map<string, Folder>;
    files: Set<string>;
  }
  const root: Folder = { folders: new Map(), files: new Set() };
  for (const path of paths) {
    const names = path.split("/");
    let folder = root;
    for (const name of names.slice(0, -1)) {
      let child = folder.folders.get(name);
      if (!child) folder.folders.set(name, (child = { folders: new Map(), files: new Set() }));
      folder = child;
    }
    folder.files.add(names.at(-1) as string);
  }
  const lines = ["."];
  const walk = (folder: Folder, prefix: string, at: string) => {
    const entries = [
      ...[...folder.folders.keys()].map((name) => ({ name, folder: true })),
      ...[...folder.files].map((name) => ({ name, folder: false })),
    ];
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    entries.forEach((entry, i) => {
      const last = i === entries.length - 1;
      const connector = last ? "└── " : "|-- ";
      const path = at === "" ? entry.name : `${at}/${entry.name}`;
      if (entry.folder) {
        lines.push(`${prefix}${connector}${entry.name}`);
        walk(folder.folders.get(entry.name) as Folder, `${prefix}${last ? "    " : "|   "}`, path);
      } else {
        const count = options.lineCounts?.get(path);
        lines.push(
          count === undefined
            ? `${prefix}${connector}${entry.name}`
            : `${prefix}${connector}${entry.name} (${count} lines)`,
        );
      }
    });
  };
  walk(root, "", "");
  return lines.join("\n");
}
