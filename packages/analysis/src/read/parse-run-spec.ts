import { INSTANCE_ID_PATTERN } from "@loclab/schemas";
import type { RunSpec } from "./read-run.js";
import { REPAIR_RUN_FORMATS, type RunFormat } from "./read-trajectory.js";

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
  if (name === "" || format === "" || dir === "")
    throw new Error(`--run: ${JSON.stringify(text)} is not NAME=FORMAT:DIR`);
  if (!(REPAIR_RUN_FORMATS as readonly string[]).includes(format))
    throw new Error(
      `--run: ${JSON.stringify(text)}: unknown format ${JSON.stringify(format)} (one of ${REPAIR_RUN_FORMATS.join(", ")})`,
    );
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

/** The non-blank lines of a text that are not `#` comments, trimmed, each once, in order. */
export function parseLineList(text: string): { line: number; value: string }[] {
  const seen = new Set<string>();
  const out: { line: number; value: string }[] = [];
  text
    .replace(/^\uFEFF/, "")
    .split(/\r?\n/)
    .forEach((raw, index) => {
      const value = raw.trim();
      if (value === "" || value.startsWith("#") || seen.has(value)) return;
      seen.add(value);
      out.push({ line: index + 1, value });
    });
  return out;
}

/**
 * Parses a task list: one instance id per line; blank lines and lines starting with # are
 * skipped, surrounding whitespace trimmed, duplicates kept once in first-seen order.
 *
 * @example parseTaskList("a__a-1\n\n# comment\nb__b-2\na__a-1\n") // ["a__a-1", "b__b-2"]
 */
export function parseTaskList(text: string): string[] {
  return parseLineList(text).map(({ line, value }) => {
    if (!INSTANCE_ID_PATTERN.test(value))
      throw new Error(
        `line ${line}: ${JSON.stringify(value.slice(0, 80))} is not an instance id (letters, digits, '.', '_', '-')`,
      );
    return value;
  });
}
