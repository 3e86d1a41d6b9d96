import { fileURLToPath } from "node:url";

/** The page's own files, shipped with the package (`assets/`), copied as they are into every site. */
export const SITE_ASSETS = ["index.html", "app.css", "filter.js", "app.js"] as const;

export function siteAssetsDir(): string {
  return fileURLToPath(new URL("../assets/", import.meta.url));
}

/**
 * A data file: a classic script handing its value to the page (`loclabData(key, value)`). JSON
 * is JavaScript, so the value is written as JSON (U+2028 and U+2029 are legal in both since
 * ES2019); one format serves a page from disk and from `loclab view` alike.
 */
export function dataScript(key: string, value: unknown): string {
  return `loclabData(${JSON.stringify(key)},${JSON.stringify(value)});\n`;
}
