import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { urlSpans } from "../src/mask/url-spans.js";

// The regular expression the linear scanner replaces, as the oracle on short texts (it is
// quadratic only on long runs of scheme characters, which these texts are too short to matter).
const URL = /[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s<>"'`]+/g;
function byRegex(text: string) {
  return [...text.matchAll(URL)].map((match) => {
    const start = match.index as number;
    const end = start + match[0].length;
    const hostStart = start + match[0].indexOf("://") + 3;
    const rest = /[/?#]/.exec(text.slice(hostStart, end));
    return { start, end, host: { start: hostStart, end: rest ? hostStart + rest.index : end } };
  });
}

describe("urlSpans", () => {
  it("finds scheme, host and path as the regular expression did", () => {
    const text =
      'see https://github.com/django/django/blob/main/x.py#L3 and "ftp://h/p" or git+ssh://a.b/c://d, 1http://x';
    expect(urlSpans(text)).toEqual(byRegex(text));
    expect(urlSpans("https://")).toEqual([]);
    expect(urlSpans("://x")).toEqual([]);
  });

  it("equals the regular expression on random texts made of URL-ish pieces", () => {
    const piece = fc.constantFrom(
      "http",
      "://",
      "a",
      "Z",
      "9",
      "+",
      ".",
      "-",
      "/",
      "?",
      "#",
      " ",
      "\n",
      "<",
      '"',
      "`",
      "x.py",
      ":",
      "h",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(urlSpans(text)).toEqual(byRegex(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("reads a 512 KB run of one letter, and runs ending in :// (the quadratic case)", () => {
    const run = "a".repeat(512 * 1024);
    expect(urlSpans(run)).toEqual([]);
    expect(urlSpans(`${run}://host/p`)).toEqual([
      { start: 0, end: run.length + 9, host: { start: run.length + 3, end: run.length + 7 } },
    ]);
    const repeated = "a://".repeat(100_000);
    expect(urlSpans(repeated)).toEqual(byRegex(repeated));
  });
});

describe("masking stays linear on adversarial texts (issue 12, item 8)", () => {
  it("a 200,000-component dotted run and a 512 KB run of one letter are read, and nothing is masked", async () => {
    const { maskIssuePaths } = await import("../src/index.js");
    const knownFiles = ["a/b.py", "django/db/models/query.py"];
    for (const text of ["a.".repeat(200_000), "a".repeat(512 * 1024), `${"a".repeat(512 * 1024)}://h`]) {
      expect(maskIssuePaths(text, { knownFiles }).text).toBe(text);
    }
    // A real mention after the run is still found.
    expect(maskIssuePaths(`${"a.".repeat(200_000)} see a.b`, { knownFiles }).report.counts.module).toBe(1);
  });
});
