import { existsSync } from "node:fs";

/**
 * How loclab's browser tests and its viewer benchmark open a site: Debian's chromium (never a
 * downloaded browser; `apt-get install chromium`), headless, with no sandbox (they run as root),
 * and with no host name resolving but 127.0.0.1 — a backstop behind the page's own
 * Content-Security-Policy, not the check (the tests watch every request themselves).
 */
export const HEADLESS_CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
];

/** Debian's chromium binary, or undefined when it is not installed. */
export function chromiumExecutable(): string | undefined {
  return ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((path) => existsSync(path));
}
