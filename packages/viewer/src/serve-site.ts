import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { SiteSource } from "./run-site.js";
import { SITE_ASSETS, dataScript, siteAssetsDir } from "./site-assets.js";
import { viewOrFailure } from "./write-site.js";

export interface ServeSiteOptions {
  /** Makes the site's source; called again (with the next revision) when a watched file changes. */
  build: (revision: number) => Promise<SiteSource>;
  /** Files whose size or time of change means the site must be made again (a run's ledger). */
  watch: readonly string[];
  /** 0 (the default) takes a free port. */
  port?: number;
  /** How often the watched files are looked at; default 1000 ms. */
  pollMs?: number;
  /** Told of each rebuild and of failed ones. */
  onRebuild?: (event: { revision: number; rows: number; ms: number } | { error: Error }) => void;
}

export interface ServedSite {
  url: string;
  /** The revision the page has now. */
  revision(): number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
};

/**
 * `loclab view`: the site served on 127.0.0.1 only, made in memory: the summary once (and again
 * when a watched file changes: the page hears of it on `/events`, a server-sent event stream,
 * and reloads it), each trajectory's view when the page asks for it. Nothing is written. Only
 * GET of the page's own files and data is answered; everything else is a 404.
 */
export async function serveSite(options: ServeSiteOptions): Promise<ServedSite> {
  let revision = 0;
  let source = await options.build(revision);
  let summaryText = dataScript("summary", { ...source.summary, live: true });
  const listeners = new Set<ServerResponse>();
  const assets = new Map<string, string>();
  for (const asset of SITE_ASSETS) assets.set(`/${asset}`, await readFile(join(siteAssetsDir(), asset), "utf8"));
  assets.set("/", assets.get("/index.html")!);

  const server = createServer((request, response) => {
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, {
        "content-type": type,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      });
      response.end(body);
    };
    if (request.method !== "GET") return send(405, "text/plain", "GET only\n");
    let path: string;
    try {
      path = decodeURIComponent((request.url ?? "/").split("?")[0]!);
    } catch {
      return send(400, "text/plain", "not a path\n");
    }
    const asset = assets.get(path);
    if (asset !== undefined)
      return send(200, TYPES[path === "/" ? ".html" : path.slice(path.lastIndexOf("."))] ?? "text/plain", asset);
    if (path === "/data/summary.js") return send(200, TYPES[".js"]!, summaryText);
    if (path === "/events") {
      response.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        connection: "keep-alive",
      });
      response.write(`event: revision\ndata: ${revision}\n\n`);
      listeners.add(response);
      request.on("close", () => listeners.delete(response));
      return;
    }
    const trajectory = /^\/data\/t\/(\d+)\.js$/.exec(path);
    if (trajectory) {
      const found = source.trajectories[Number(trajectory[1])];
      if (!found) return send(404, "text/plain", "no such trajectory\n");
      void viewOrFailure(found).then(({ view }) => send(200, TYPES[".js"]!, dataScript(`t/${found.id}`, view)));
      return;
    }
    send(404, "text/plain", "not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });

  const signature = () =>
    options.watch
      .map((file) => {
        try {
          const stat = statSync(file);
          return `${stat.size}:${stat.mtimeMs}`;
        } catch {
          return "absent";
        }
      })
      .join("|");
  let seen = signature();
  let building = false;
  const poll = setInterval(() => {
    if (building) return;
    const now = signature();
    if (now === seen) return;
    building = true;
    const started = performance.now();
    options
      .build(revision + 1)
      .then((next) => {
        seen = now;
        source = next;
        revision++;
        summaryText = dataScript("summary", { ...source.summary, live: true });
        for (const listener of listeners) listener.write(`event: revision\ndata: ${revision}\n\n`);
        options.onRebuild?.({ revision, rows: source.trajectories.length, ms: performance.now() - started });
      })
      .catch((error: Error) => options.onRebuild?.({ error }))
      .finally(() => {
        building = false;
      });
  }, options.pollMs ?? 1000);
  poll.unref();

  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    revision: () => revision,
    close: async () => {
      clearInterval(poll);
      for (const listener of listeners) listener.end();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
