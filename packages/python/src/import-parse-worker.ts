// Worker thread of the import-parse pool (import-parse-pool.ts): parses each batch of Python
// sources it is sent with its own tree-sitter parser (the same grammar and query as the
// calling thread's) and posts back every file's imports, or why one could not be parsed.
import { parentPort } from "node:worker_threads";
import { pythonImports } from "./python-imports.js";
import { loadPythonImportParser } from "./python-parsers.js";
import type { ParseAnswer, ParseBatch } from "./import-parse-pool.js";

const port = parentPort;
if (port) {
  port.on("message", (batch: ParseBatch) => {
    loadPythonImportParser().then(
      (parser) => {
        // Synchronous from here: the parser is not re-entrant, and no other batch can start
        // while this loop runs.
        const results: ParseAnswer["results"] = batch.sources.map((source) => {
          try {
            return pythonImports(source, parser);
          } catch (error) {
            return { error: error instanceof Error ? error.message : String(error) };
          }
        });
        port.postMessage({ id: batch.id, results } satisfies ParseAnswer);
      },
      (error: unknown) => port.postMessage({ id: batch.id, failed: error instanceof Error ? error.message : String(error) } satisfies ParseAnswer),
    );
  });
}
