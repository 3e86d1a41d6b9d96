import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let fingerprint: string | undefined;

/**
 * A fingerprint of everything that decides what import graph a tree gives: this package's
 * own code (import extraction and module resolution), the Python grammar's wasm and the
 * tree-sitter runtime. Cached graphs are keyed by it (with the commit), so that any change
 * to the parser or to the resolution rules makes every stored graph stale at once, without
 * a version number to remember to bump. sha256, first 16 hex digits; computed once per process.
 */
export function importParserFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash("sha256");
  const here = dirname(fileURLToPath(import.meta.url));
  for (const name of readdirSync(here)
    .filter((file) => /\.(js|ts)$/.test(file) && !file.endsWith(".d.ts"))
    .sort()) {
    hash.update(name).update(readFileSync(join(here, name)));
  }
  const require = createRequire(import.meta.url);
  hash.update(readFileSync(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm")));
  hash.update(readFileSync(fileURLToPath(import.meta.resolve("web-tree-sitter"))));
  fingerprint = hash.digest("hex").slice(0, 16);
  return fingerprint;
}
