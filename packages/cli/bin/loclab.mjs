#!/usr/bin/env node
// The `loclab` command's entry, committed as source so that `npm ci` links it into
// node_modules/.bin on a fresh clone, before anything is built (a bin that points into dist/
// does not exist yet at install time, and npm then links nothing). It runs the built CLI, or
// says in one line how to build it.
import { existsSync } from "node:fs";

const built = new URL("../dist/bin.js", import.meta.url);
if (!existsSync(built)) {
  process.stderr.write(
    "loclab: error: the CLI is not built yet: run `npm run build` (or `npm run reproduce` / `npm test`, which build first) in the repository\n",
  );
  process.exit(1);
}
await import(built.href);
