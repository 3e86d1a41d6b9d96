import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

let digest: string | undefined;

/**
 * A digest of what `pythonSourceFacts` computes with: its own code, the parsers' queries
 * (python-parsers), the grammar's `.wasm` and web-tree-sitter's code. Facts kept from an
 * earlier parse (a shuffle's facts store) are keyed with it, so that a change to any of them
 * parses every file again instead of reusing facts the new code would not give.
 */
export function pythonFactsDigest(): string {
  if (digest) return digest;
  const hash = createHash("sha256").update("loclab python facts\n");
  const require = createRequire(import.meta.url);
  for (const name of ["python-source-facts", "python-parsers"]) {
    // Compiled (dist) or, run from the sources (the package's tests), the TypeScript.
    const file = [".js", ".ts"]
      .map((extension) => fileURLToPath(new URL(`./${name}${extension}`, import.meta.url)))
      .find((candidate) => existsSync(candidate));
    if (!file) throw new Error(`pythonFactsDigest: ${name} is missing beside ${fileURLToPath(import.meta.url)}`);
    hash.update(readFileSync(file));
  }
  hash.update(readFileSync(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm")));
  hash.update(readFileSync(require.resolve("web-tree-sitter")));
  digest = hash.digest("hex");
  return digest;
}
