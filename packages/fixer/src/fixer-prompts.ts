import { readFile } from "node:fs/promises";

/** The fixer's prompt templates under `packages/fixer/prompts/`, by file name without `.md`. */
export type FixerPromptName = "system" | "user" | "no-tool-call" | "compaction";

/** The prompts folder beside `src/` and `dist/` (shipped: package.json `files`). */
export const FIXER_PROMPTS_DIR = new URL("../prompts/", import.meta.url);

/** One shipped template, read once per process. */
export async function readFixerPrompt(name: FixerPromptName): Promise<string> {
  let pending = templates.get(name);
  if (!pending) {
    pending = readFile(new URL(`${name}.md`, FIXER_PROMPTS_DIR), "utf8");
    pending.catch(() => templates.delete(name));
    templates.set(name, pending);
  }
  return pending;
}
const templates = new Map<FixerPromptName, Promise<string>>();
