import { expect } from "vitest";
import { renderSvg } from "../src/index.js";
/**
 * Small readers for the SVG that Vega writes, so tests can check what was drawn
 * (how many bars, which labels) rather than snapshotting thousands of characters.
 */

/**
 * Throws unless `xml` is well-formed: one root, every tag closed in order, attributes
 * quoted. Enough for machine-written SVG (no DTD, CDATA or processing instructions).
 */
export function assertWellFormedXml(xml: string): void {
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z_][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|<|>/g;
  let match: RegExpExecArray | null;
  while ((match = token.exec(xml)) !== null) {
    const [text, closing, name, , selfClosing] = match;
    if (name === undefined) throw new Error(`stray "${text}" at offset ${match.index}`);
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> at offset ${match.index} closes <${open ?? "nothing"}>`);
    } else if (!selfClosing) {
      if (stack.length === 0) roots += 1;
      stack.push(name);
    } else if (stack.length === 0) {
      roots += 1;
    }
  }
  if (stack.length > 0) throw new Error(`unclosed <${stack.join("> <")}>`);
  if (roots !== 1) throw new Error(`expected one root element, found ${roots}`);
}

/** `aria-label`s of the marks Vega describes with the given role, e.g. "bar", "rect mark". */
export function markLabels(svg: string, roleDescription: string): string[] {
  const pattern = new RegExp(
    `aria-label="([^"]*)" role="graphics-symbol" aria-roledescription="${roleDescription}"`,
    "g",
  );
  return [...svg.matchAll(pattern)].map((m) => m[1] ?? "");
}

/** Visible text of every <text> inside groups with the given class, e.g. "role-axis-label". */
export function textsIn(svg: string, groupClass: string): string[] {
  const groups = svg.match(new RegExp(`<g class="[^"]*\\b${groupClass}\\b[^"]*"[^>]*>([\\s\\S]*?)</g>`, "g")) ?? [];
  return groups.flatMap((group) => [...group.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? ""));
}

/** The root element's width and height attributes. */
export function svgSize(svg: string): { width: number; height: number } {
  const root = /^<svg[^>]*>/.exec(svg)?.[0] ?? "";
  return {
    width: Number(/\swidth="([\d.]+)"/.exec(root)?.[1]),
    height: Number(/\sheight="([\d.]+)"/.exec(root)?.[1]),
  };
}

/** Renders a spec, failing the test on any Vega warning (our builders should trigger none) or malformed SVG. */
export async function renderChecked(spec: Parameters<typeof renderSvg>[0]): Promise<string> {
  const warnings: string[] = [];
  const svg = await renderSvg(spec, { onWarning: (message) => warnings.push(message) });
  expect(warnings).toEqual([]);
  assertWellFormedXml(svg);
  return svg;
}
