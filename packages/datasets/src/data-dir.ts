import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Environment variable that points loclab at a data folder laid out like ../shared/data. */
export const DATA_DIR_ENV = "LOCLAB_DATA_DIR";

/**
 * Finds the shared data folder. In order: the explicit option, `$LOCLAB_DATA_DIR`, then a
 * `shared/data` folder (with its README.md) beside any ancestor of the working directory or
 * of this package: the repository sits next to `shared/`, so `../shared/data` is found from
 * the repository root, from `notebooks/` and from an installed package alike.
 */
export function resolveDataDir(options: { dataDir?: string; cwd?: string } = {}): string {
  if (options.dataDir) return mustExist(resolve(options.dataDir), "the dataDir option");
  const fromEnv = process.env[DATA_DIR_ENV];
  if (fromEnv) return mustExist(resolve(fromEnv), `$${DATA_DIR_ENV}`);
  const starts = [options.cwd ?? process.cwd(), dirname(fileURLToPath(import.meta.url))];
  const tried: string[] = [];
  for (const start of starts) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const candidate = join(dir, "shared", "data");
      tried.push(candidate);
      if (existsSync(join(candidate, "README.md"))) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  throw new Error(
    `cannot find the shared data folder: set ${DATA_DIR_ENV} or pass dataDir (looked for shared/data beside ${[...new Set(starts)].join(" and ")} and their parents)`,
  );
}

function mustExist(dir: string, source: string): string {
  if (!existsSync(dir)) throw new Error(`data folder ${dir} (from ${source}) does not exist`);
  return dir;
}
