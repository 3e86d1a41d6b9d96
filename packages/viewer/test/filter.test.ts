import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";

// The page's filter language (assets/filter.js), run as the page runs it: a classic script in a
// fresh global scope.
const source = readFileSync(fileURLToPath(new URL("../assets/filter.js", import.meta.url)), "utf8");
const sandbox: {
  LoclabFilter?: { compile(text: string, columns: Record<string, unknown[]>): (row: number) => boolean };
} = {};
runInNewContext(source, sandbox);
const { compile } = sandbox.LoclabFilter!;

const columns = {
  instance: ["django__django-1", "sympy__sympy-2", "django__django-3", "astropy__astropy-4"],
  control: ["masked", "plain", "masked", "shuffled:7"],
  acc1: [0, 1, 0, null],
  turns: [3, 8, 12, null],
  resolved: [null, 1, 0, null],
  exit: ["submitted", "step_limit", "submitted", null],
};
const rows = (text: string) => [0, 1, 2, 3].filter(compile(text, columns));

describe("the instance table's filter expressions", () => {
  it("the issue's example: control, acc1 and turns joined by and", () => {
    expect(rows('control == "masked" and acc1 == 0 and turns < 5')).toEqual([0]);
  });

  it("and binds tighter than or; not and parentheses; = is ==", () => {
    expect(rows('control = "plain" or control == "masked" and turns > 10')).toEqual([1, 2]);
    expect(rows('(control = "plain" or control == "masked") and turns > 10')).toEqual([2]);
    expect(rows('not (exit == "submitted")')).toEqual([1, 3]);
    expect(rows('not exit == "submitted" and turns >= 8')).toEqual([1]);
  });

  it("~ contains ignoring case; strings in either quote; a bare column keeps its truthy rows", () => {
    expect(rows("instance ~ 'DJANGO'")).toEqual([0, 2]);
    expect(rows("resolved")).toEqual([1]);
    expect(rows('control ~ "shuffled"')).toEqual([3]);
  });

  it("null never orders and equals only null; numbers compare with numeric text", () => {
    expect(rows("turns < 100")).toEqual([0, 1, 2]);
    expect(rows("acc1 == null")).toEqual([3]);
    expect(rows("acc1 != 0")).toEqual([1, 3]);
    expect(rows('acc1 == "1"')).toEqual([1]);
  });

  it("an empty expression keeps every row", () => {
    expect(rows("")).toEqual([0, 1, 2, 3]);
    expect(rows("   ")).toEqual([0, 1, 2, 3]);
  });

  it("errors name the problem and its position", () => {
    const error = (text: string) => {
      try {
        compile(text, columns);
      } catch (thrown) {
        const { message, at } = thrown as { message: string; at: number };
        return `${at}: ${message}`;
      }
      return "no error";
    };
    expect(error("turns <")).toBe("7: expected a column or a value");
    expect(error("tokens > 5")).toBe('0: no column "tokens" (columns: instance, control, acc1, turns, resolved, exit)');
    expect(error('control == "masked')).toBe("11: a string is not closed");
    expect(error("(turns > 1")).toBe("10: expected )");
    expect(error("turns > 1 turns")).toBe('10: unexpected "turns"');
    expect(error("5")).toBe("0: a value alone is not a condition");
    expect(error("turns # 3")).toBe('6: unexpected "#"');
  });
});
