import { z } from "zod";
import { type Finding, FindingSchema } from "./finding.js";

/**
 * One location of a SHERLOC output line, as its `<locations>` parser writes it: a file and a
 * range, a file and one line (`end_line` = `start_line`), or only the `raw` text of a line
 * that matched neither form. The range is SHERLOC's as parsed (`L0`, reversed ranges kept).
 */
export const SherlocOutputLocationSchema = z.looseObject({
  file_path: z.string().optional(),
  start_line: z.number().int().optional(),
  end_line: z.number().int().optional(),
  raw: z.string().optional(),
});
export type SherlocOutputLocation = z.output<typeof SherlocOutputLocationSchema>;

/** One turn of a SHERLOC output line: the model's answer, the parsed tool call, the tool's output, token counts. */
export const SherlocTurnSchema = z.looseObject({
  turn_id: z.number().int().optional(),
  inputs: z.string().optional(),
  assistant: z.string().optional(),
  tool_call: z.record(z.string(), z.unknown()).nullable().optional(),
  tool_output: z.string().optional(),
  _llm_tokens: z.number().optional(),
  _tool_tokens: z.number().optional(),
  _input_tokens: z.number().optional(),
  turn_type: z.string().optional(),
  /** On the answer turn: the locations its `<locations>` block gave. */
  locations: z.array(SherlocOutputLocationSchema).optional(),
});
export type SherlocTurn = z.output<typeof SherlocTurnSchema>;

/**
 * One line of a SHERLOC generation file (NVIDIA-NeMo/Skills, `recipes/sherloc/inference/
 * sherloc.py`, `process_single_datapoint`'s record merged into the input row): the instance,
 * `status` (`success`, `failed`, `skipped`), `reason` (why not success), `locations`
 * (null unless success), `findings` (the `<findings>` block's text, or null), `turns`,
 * `num_turns` and `total_generated_tokens`. Extra fields (the input row, `generation`,
 * timings, SHERLOC's evaluator's `eval_status`) are kept as they are.
 */
export const SherlocOutputRowSchema = z.looseObject({
  instance_id: z.string().min(1),
  status: z.string().min(1),
  reason: z.string().nullable().optional(),
  locations: z.array(SherlocOutputLocationSchema).nullable().optional(),
  findings: z.string().nullable().optional(),
  turns: z.array(SherlocTurnSchema).optional(),
  num_turns: z.number().int().nonnegative().optional(),
  total_generated_tokens: z.number().nonnegative().optional(),
});
export type SherlocOutputRow = z.output<typeof SherlocOutputRowSchema>;

/**
 * The content of a `<tag>` block as SHERLOC's `DialogProcessor._extract_tag_content` takes
 * it: the first closed block, trimmed; else, for a block never closed, everything after the
 * opening tag (up to a final line break), trimmed; `undefined` when the tag does not occur.
 */
export function sherlocTagContent(text: string, tag: string): string | undefined {
  const open = `<${tag}>`;
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const close = text.indexOf(`</${tag}>`, start + open.length);
  if (close >= 0) return pythonStrip(text.slice(start + open.length, close));
  // Python's `<tag>\s*(.*?)$` under DOTALL: `$` also matches before one final "\n".
  let rest = text.slice(start + open.length);
  if (rest.endsWith("\n")) rest = rest.slice(0, -1);
  return pythonStrip(rest);
}

// Python's `\d` is any decimal digit of Unicode, and `int()` reads them all.
const RANGE_LINE = /^([^:]+):L(\p{Nd}+)-L(\p{Nd}+)/u;
const SINGLE_LINE = /^([^:]+):L(\p{Nd}+)/u;
const DIGIT = /\p{Nd}/u;

/**
 * The locations of a `<locations>` block as SHERLOC's `DialogProcessor._extract_locations`
 * parses them: each line trimmed, blank and `#` lines skipped; `path:L<a>-L<b>` (matched at
 * the start; trailing text ignored) is a range, `path:L<a>` one line, anything else a
 * `{raw}` entry; `raw` is always the whole trimmed line. A prefix such as `- ` stays in the
 * path and `a.py:L10-20` reads as line 10 alone, as in SHERLOC. `[]` when there is no block.
 *
 * @example parseSherlocLocations("<locations>\nsrc/a.py:L10-L20\nsrc/b.py:L7\nsee above\n</locations>")
 * // [{file_path:"src/a.py",start_line:10,end_line:20,raw:"src/a.py:L10-L20"}, {file_path:"src/b.py",start_line:7,end_line:7,raw:"src/b.py:L7"}, {raw:"see above"}]
 */
export function parseSherlocLocations(text: string): SherlocOutputLocation[] {
  const block = sherlocTagContent(text, "locations");
  if (!block) return [];
  const locations: SherlocOutputLocation[] = [];
  for (const line of block.split("\n").map(pythonStrip)) {
    if (line === "" || line.startsWith("#")) continue;
    const range = RANGE_LINE.exec(line);
    if (range) {
      locations.push({
        file_path: range[1] as string,
        start_line: pythonInt(range[2] as string),
        end_line: pythonInt(range[3] as string),
        raw: line,
      });
      continue;
    }
    const single = SINGLE_LINE.exec(line);
    if (single)
      locations.push({
        file_path: single[1] as string,
        start_line: pythonInt(single[2] as string),
        end_line: pythonInt(single[2] as string),
        raw: line,
      });
    else locations.push({ raw: line });
  }
  return locations;
}

/** Python's `str.strip()`: whitespace as Python's `isspace` defines it (\x1c–\x1f and NEL, not the BOM). */
export function pythonStrip(text: string): string {
  return text.replace(PYTHON_EDGE_SPACE, "");
}
const PYTHON_SPACE = "[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const PYTHON_EDGE_SPACE = new RegExp(`^${PYTHON_SPACE}+|${PYTHON_SPACE}+$`, "g");

/** Python's `int()` of a run of Unicode decimal digits: each digit's value is its place in its block of ten. */
function pythonInt(digits: string): number {
  let value = 0;
  for (const char of digits) {
    const code = char.codePointAt(0) as number;
    let zero = code;
    // Decimal digits come in runs of ten starting at zero; find the run's start.
    while (DIGIT.test(String.fromCodePoint(zero - 1))) zero -= 1;
    value = value * 10 + ((code - zero) % 10);
  }
  return value;
}

/** The five labels SHERLOC's prompt asks the `<findings>` block to use, and loclab's field for each. */
const FINDING_LABELS = [
  ["location explanation", "locationExplanation"],
  ["root cause", "rootCause"],
  ["solution idea", "solutionIdea"],
  ["dependencies", "dependencies"],
  ["testing impact", "testingImpact"],
] as const;

/**
 * loclab's five-field finding read from the text of a SHERLOC `<findings>` block, which
 * SHERLOC keeps as free text (its prompt suggests the bullets `• Location explanation:`,
 * `• Root cause:`, `• Solution idea:`, `• Dependencies:`, `• Testing impact:`). A field runs
 * from its label (any case, after an optional bullet or `**`) to the next label. `undefined`
 * unless all five are there and non-empty: a partial finding is not a finding.
 */
export function parseSherlocFindings(text: string | null | undefined): Finding | undefined {
  if (!text) return undefined;
  const label = new RegExp(
    `^[\\s•*\\-]*(?:\\*\\*)?(${FINDING_LABELS.map(([name]) => name).join("|")})(?:\\*\\*)?\\s*:(?:\\*\\*)?`,
    "gim",
  );
  const marks = [...text.matchAll(label)].map((match) => ({
    name: (match[1] as string).toLowerCase(),
    from: match.index,
    to: match.index + match[0].length,
  }));
  const fields: Partial<Record<(typeof FINDING_LABELS)[number][1], string>> = {};
  marks.forEach((mark, i) => {
    const key = FINDING_LABELS.find(([name]) => name === mark.name)?.[1];
    const body = text.slice(mark.to, marks[i + 1]?.from ?? text.length).trim();
    if (key && body !== "" && fields[key] === undefined) fields[key] = body;
  });
  const parsed = FindingSchema.safeParse(fields);
  return parsed.success ? parsed.data : undefined;
}

/** The text of a `<findings>` block as SHERLOC's `DialogProcessor.extract_findings` keeps it: trimmed, `null` when missing or empty. */
export function sherlocFindingsText(text: string): string | null {
  const block = sherlocTagContent(text, "findings");
  return block ? block : null;
}
