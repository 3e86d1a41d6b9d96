import { type Stats, statSync } from "node:fs";

/** What a path points to, undefined when it cannot be read (gone, a dangling link, a loop of links). */
export function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
