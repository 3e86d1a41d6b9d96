import { promptReader } from "@loclab/agent";

/** The fixer's prompt templates under `packages/fixer/prompts/`, by file name without `.md`. */
export type FixerPromptName = "system" | "user" | "no-tool-call" | "compaction";

/** The prompts folder beside `src/` and `dist/` (shipped: package.json `files`). */
export const FIXER_PROMPTS_DIR = new URL("../prompts/", import.meta.url);

/** One shipped template, read once per process. */
export const readFixerPrompt: (name: FixerPromptName) => Promise<string> =
  promptReader<FixerPromptName>(FIXER_PROMPTS_DIR);
