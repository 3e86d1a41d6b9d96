import { describe, expect, it } from "vitest";
import { assertWellFormedXml } from "./svg.js";

// The SVG tests lean on this checker, so check that it really rejects broken XML.
describe("assertWellFormedXml", () => {
  it("accepts nested and self-closing elements", () => {
    expect(() => assertWellFormedXml('<svg a="1"><g><path d="M0,0"/></g><text>x</text></svg>')).not.toThrow();
  });

  it.each([
    ["<svg><g></svg>", "</svg> at offset 8 closes <g>"],
    ["<svg><g>", "unclosed <svg> <g>"],
    ["<svg></svg><svg></svg>", "expected one root element, found 2"],
    ['<svg a=1"></svg>', 'stray "<" at offset 0'],
  ])("rejects %s", (xml, message) => {
    expect(() => assertWellFormedXml(xml)).toThrow(message);
  });
});
