import { readFile } from "node:fs/promises";

/** The prompt templates under `packages/agent/prompts/`, by file name without `.md`. */
export type PromptName =
  | "system"
  | "system-text"
  | "user"
  | "forced-final"
  | "final-repair"
  | "judge"
  | "judge-repair"
  | "system-sherloc"
  | "user-sherloc"
  | "forced-final-sherloc";

/**
 * The prompts folder, found from this module's own location: `src/` and `dist/` both sit one
 * level below the package root, so the same URL works from the sources (tests) and from the
 * build, which ships `prompts/` beside `dist/` (package.json `files`).
 */
export const PROMPTS_DIR = new URL("../prompts/", import.meta.url);

/**
 * A reader of the `<name>.md` templates in a shipped prompts folder, each read once per process
 * (the shipped templates do not change while it runs; a failed read is tried again).
 */
export function promptReader<Name extends string>(dir: URL): (name: Name) => Promise<string> {
  const templates = new Map<Name, Promise<string>>();
  return (name) => {
    let pending = templates.get(name);
    if (!pending) {
      pending = readFile(new URL(`${name}.md`, dir), "utf8");
      pending.catch(() => templates.delete(name));
      templates.set(name, pending);
    }
    return pending;
  };
}

/** Reads one of the localizer's prompt templates. */
export const readPromptTemplate: (name: PromptName) => Promise<string> = promptReader<PromptName>(PROMPTS_DIR);

/**
 * Fills `{{name}}` placeholders. A placeholder without a value, or a value without a
 * placeholder, is an error: a prompt silently missing its budget is worse than a crash.
 *
 * @example fillTemplate("{{n}} turns", { n: "20" }) // "20 turns"
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  const used = new Set<string>();
  const filled = template.replace(/\{\{(\w+)\}\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`prompt template needs a value for {{${key}}}`);
    used.add(key);
    return value;
  });
  const unused = Object.keys(values).filter((key) => !used.has(key));
  if (unused.length > 0)
    throw new Error(`prompt template has no placeholder for ${unused.map((key) => `{{${key}}}`).join(", ")}`);
  return filled;
}
