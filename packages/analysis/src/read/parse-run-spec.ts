import type { RunSpec } from "./read-run.js";
import { RUN_FORMATS, type RunFormat } from "./read-trajectory.js";

/**
 * Parses a `--run` value, `NAME=FORMAT:DIR` (FORMAT one of loclab, mini-swe-agent, swe-agent,
 * autocoderover; DIR may itself contain ':' or '=').
 *
 * Errors: a missing part or an unknown format, quoting the value.
 *
 * @example parseRunSpec("acr=autocoderover:runs/acr-run-1") // { name: "acr", format: "autocoderover", dir: "runs/acr-run-1" }
 */
export function parseRunSpec(text: string): RunSpec {
  const equals = text.indexOf("=");
  const colon = text.indexOf(":", equals + 1);
  const name = equals > 0 ? text.slice(0, equals).trim() : "";
  const format = colon > equals ? text.slice(equals + 1, colon).trim() : "";
  const dir = colon > equals ? text.slice(colon + 1) : "";
  if (name === "" || format === "" || dir === "") throw new Error(`--run: ${JSON.stringify(text)} is not NAME=FORMAT:DIR`);
  if (!RUN_FORMATS.includes(format as RunFormat)) throw new Error(`--run: ${JSON.stringify(text)}: unknown format ${JSON.stringify(format)} (one of ${RUN_FORMATS.join(", ")})`);
  return { name, format: format as RunFormat, dir };
}

/**
 * Parses a `--resolved` value, `NAME=FILE`.
 *
 * Errors: no name or no file.
 */
export function parseResolvedSpec(text: string): { name: string; file: string } {
  const equals = text.indexOf("=");
  const name = equals > 0 ? text.slice(0, equals).trim() : "";
  const file = equals > 0 ? text.slice(equals + 1) : "";
  if (name === "" || file === "") throw new Error(`--resolved: ${JSON.stringify(text)} is not NAME=FILE`);
  return { name, file };
}

/**
 * Parses a task list: one instance id per line; blank lines and lines starting with # are
 * skipped, surrounding whitespace trimmed, duplicates kept once in first-seen order.
 *
 * @example parseTaskList("a__a-1\n\n# comment\nb__b-2\na__a-1\n") // ["a__a-1", "b__b-2"]
 */
export function parseTaskList(text: string): string[] {
  const ids = new Set<string>();
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    ids.add(line);
  }
  return [...ids];
}
