import { loadPythonParser, PythonModuleIndex, type PythonSourceFacts, pythonSourceFacts } from "@loclab/python";
import {
  applyTextEdits,
  type ImportRewriteStats,
  isPythonSource,
  planImportRewrites,
  planShuffle,
  type ShuffleMapping,
  shuffleLookup,
} from "../src/index.js";

/**
 * The whole pure pipeline over an in-memory repository: plan (seed 1), parse, rewrite.
 * Returns the rewritten sources, the mapping, the stats per file and `name`, which gives the
 * shuffled name of a folder (`pkg/sub`) or the shuffled stem of a module file (`pkg/mod.py`).
 */
export async function rewriteInMemory(
  files: Record<string, string>,
  options: { seed?: number; rewriteDottedStrings?: boolean; keepBindings?: boolean } = {},
): Promise<{
  mapping: ShuffleMapping;
  sources: Map<string, string>;
  stats: Map<string, ImportRewriteStats>;
  facts: Map<string, PythonSourceFacts>;
  name: (path: string) => string;
}> {
  const paths = Object.keys(files);
  const mapping = planShuffle(paths, { seed: options.seed ?? 1 });
  const lookup = shuffleLookup(mapping, "map");
  const python = await loadPythonParser();
  const facts = new Map<string, PythonSourceFacts>();
  for (const [path, source] of Object.entries(files))
    if (isPythonSource(path)) facts.set(path, pythonSourceFacts(source, python));
  const context = {
    index: new PythonModuleIndex(paths),
    lookup,
    factsOf: (file: string) => facts.get(file),
    rewriteDottedStrings: options.rewriteDottedStrings ?? false,
    keepBindings: options.keepBindings ?? true,
  };
  const sources = new Map<string, string>();
  const stats = new Map<string, ImportRewriteStats>();
  for (const [path, fileFacts] of facts) {
    const rewrites = planImportRewrites(path, fileFacts, context);
    sources.set(path, applyTextEdits(files[path] as string, rewrites.edits));
    stats.set(path, rewrites.stats);
  }
  const name = (path: string) => {
    const renamed = lookup.directories.get(path) ?? lookup.files.get(path);
    if (renamed === undefined) throw new Error(`no ${path} in the mapping`);
    return (renamed.split("/").at(-1) as string).replace(/\.pyi?$/, "");
  };
  return { mapping, sources, stats, facts, name };
}
