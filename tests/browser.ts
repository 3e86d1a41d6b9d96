import { chromiumExecutable, HEADLESS_CHROMIUM_ARGS } from "@loclab/viewer";
import { type Browser, type BrowserContext, chromium } from "playwright-core";

/** Debian's chromium, or undefined (the browser tests are then skipped with a reason). */
export const CHROMIUM = chromiumExecutable();

/** Debian's chromium driven by playwright-core as `@loclab/viewer`'s HEADLESS_CHROMIUM_ARGS say. */
export async function launchChromium(): Promise<Browser> {
  if (!CHROMIUM) throw new Error("no chromium: npm test installs Debian's chromium (apt-get install chromium)");
  return chromium.launch({ executablePath: CHROMIUM, args: [...HEADLESS_CHROMIUM_ARGS] });
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
