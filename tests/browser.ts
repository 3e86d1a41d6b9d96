import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium } from "playwright-core";

/**
 * Debian's chromium driven by playwright-core (never a browser download): headless, no
 * sandbox (tests run as root), and a browser-level backstop so that no name but 127.0.0.1
 * resolves. The test's own guard (`guardNetwork`) is what checks the page's requests.
 */
export const CHROMIUM = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((path) => existsSync(path));

export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error("no chromium: npm test installs Debian's chromium (apt-get install chromium)");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ],
  });
}

/**
 * Every request the context's pages make, and any to another origin than `origin` (a file://
 * site: file: URLs only) aborted and kept in `foreign`. An aborted request still counts: the
 * attempt is the fault.
 */
export async function guardNetwork(
  context: BrowserContext,
  origin: string,
): Promise<{ requests: string[]; foreign: string[] }> {
  const seen = { requests: [] as string[], foreign: [] as string[] };
  const own = (url: string) =>
    origin === "file://" ? url.startsWith("file://") : url === origin || url.startsWith(`${origin}/`);
  const allowed = (url: string) => own(url) || url.startsWith("data:") || url.startsWith("blob:");
  context.on("request", (request) => {
    seen.requests.push(request.url());
    if (!allowed(request.url())) seen.foreign.push(request.url());
  });
  await context.route("**/*", (route) =>
    allowed(route.request().url()) ? route.continue() : route.abort("blockedbyclient"),
  );
  return seen;
}
