import { expect } from "vitest";
import type { MaskedIssue } from "../src/index.js";

/**
 * The rest of the text is untouched: the original text outside the replaced spans equals the
 * masked text outside the placeholders, piece by piece.
 */
export function expectRestIdentical(original: string, result: MaskedIssue): void {
  const rebuilt: string[] = [];
  let cursor = 0;
  let maskedCursor = 0;
  for (const replacement of result.report.replacements) {
    expect(original.slice(replacement.start, replacement.end)).toBe(replacement.original);
    const gap = original.slice(cursor, replacement.start);
    expect(result.text.slice(maskedCursor, maskedCursor + gap.length)).toBe(gap);
    maskedCursor += gap.length;
    expect(result.text.slice(maskedCursor, maskedCursor + replacement.placeholder.length)).toBe(
      replacement.placeholder,
    );
    maskedCursor += replacement.placeholder.length;
    rebuilt.push(gap, replacement.placeholder);
    cursor = replacement.end;
  }
  expect(result.text.slice(maskedCursor)).toBe(original.slice(cursor));
  rebuilt.push(original.slice(cursor));
  expect(rebuilt.join("")).toBe(result.text);
}
