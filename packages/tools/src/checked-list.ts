import { z } from "zod";

/**
 * A schema for a long list whose items one plain loop checks. The workspace manifest and the
 * content pack's header hold an entry per file of the tree (thousands); zod's parse of each
 * item as an object schema cost a new process about 20 ms on django, more than the search it
 * was opened for (issue 18). The list is checked as strictly, and a bad item is named by its
 * position.
 */
export function checkedList<T>(isItem: (value: unknown) => value is T, what: string) {
  return z.custom<T[]>((value) => Array.isArray(value) && firstBadItem(value, isItem) === -1, {
    error: (issue) =>
      Array.isArray(issue.input)
        ? `item ${firstBadItem(issue.input, isItem)} is not ${what}`
        : `expected a list of ${what}`,
  });
}

function firstBadItem<T>(list: readonly unknown[], isItem: (value: unknown) => value is T): number {
  for (let i = 0; i < list.length; i += 1) if (!isItem(list[i])) return i;
  return -1;
}
