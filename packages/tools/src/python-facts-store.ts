import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PythonFactsMemo } from "@loclab/controls";
import { type PythonSourceFacts, pythonFactsDigest } from "@loclab/python";

/**
 * A folder of parsed Python facts, one JSON file per source content
 * (`<dir>/<2 hex>/<sha256>.json`, the hash over `pythonFactsDigest()` and the file's bytes),
 * shared by every shuffle of every commit, thread and process that is given the same folder.
 * The facts are a pure function of the bytes, so a file seen before is not parsed again. A
 * file written half (a kill) or unreadable is parsed again; each is written to a temporary
 * name and renamed into place.
 */
export function pythonFactsStore(dir: string): PythonFactsMemo & { hits: number } {
  const salt = pythonFactsDigest();
  const keys = new WeakMap<Uint8Array, string>();
  const keyOf = (source: Uint8Array) => {
    let key = keys.get(source);
    if (!key) {
      key = createHash("sha256").update(salt).update(source).digest("hex");
      keys.set(source, key);
    }
    return key;
  };
  const fileOf = (key: string) => join(dir, key.slice(0, 2), `${key}.json`);
  const store = {
    /** Sources whose facts were found (not parsed again). */
    hits: 0,
    get(source: Uint8Array): PythonSourceFacts | undefined {
      try {
        const facts = JSON.parse(readFileSync(fileOf(keyOf(source)), "utf8")) as PythonSourceFacts;
        store.hits += 1;
        return facts;
      } catch {
        return undefined;
      }
    },
    set(source: Uint8Array, facts: PythonSourceFacts): void {
      const file = fileOf(keyOf(source));
      try {
        mkdirSync(join(file, ".."), { recursive: true });
        const temporary = `${file}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
        writeFileSync(temporary, JSON.stringify(facts));
        renameSync(temporary, file);
      } catch {
        // Best effort: a store that cannot be written only means parsing again next time.
      }
    },
  };
  return store;
}
