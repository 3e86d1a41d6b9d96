import { clearCachedWorkspaces, defaultWorkspaceCacheDir, listWorkspaceCache } from "@loclab/tools";
import { stampRecord } from "@loclab/schemas";
import type { Command } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";
import { summaryOf } from "../command-summaries.js";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30d`, `12h`, `90m`, `45s` → milliseconds; a bare number is days. */
export function parseAge(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(text.trim());
  if (!match)
    throw new Error(`--older-than: expected a number with a unit s, m, h or d (e.g. 7d), got ${JSON.stringify(text)}`);
  return Number(match[1]) * (UNITS[match[2] || "d"] as number);
}

function humanBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

/**
 * `loclab cache ls|clear`: the workspace cache runs share (materialized trees at base commit
 * and shuffled copies; default `~/.cache/loclab/workspaces`, `$LOCLAB_WORKSPACE_CACHE`).
 */
export function registerCacheCommand(program: Command): void {
  const cache = program.command("cache").description(summaryOf("cache"));
  cache
    .command("ls")
    .description("list the cached trees and shuffled copies, with their logical size and their size on disk")
    .option("--dir <dir>", `the cache folder (default ${defaultWorkspaceCacheDir()})`)
    .option("--json", "one JSON object")
    .action(async (options: { dir?: string; json?: boolean }) => {
      const dir = options.dir ?? defaultWorkspaceCacheDir();
      const entries = await listWorkspaceCache(dir);
      // Physical: every block once (a file shared by trees counts in the blob store only).
      // Logical: what the trees, copies and facts would take if none shared a file.
      const disk = entries.reduce((sum, entry) => sum + entry.diskBytes, 0);
      const logical = entries.reduce((sum, entry) => sum + (entry.kind === "blobs" ? 0 : entry.bytes), 0);
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify(stampRecord({ dir, entries, diskBytes: disk, logicalBytes: logical }))}\n`,
        );
        return;
      }
      printTable(
        entries.map((entry) => ({
          kind: entry.kind,
          repo: entry.repo,
          commit: entry.commit.slice(0, 12),
          seed: entry.seed ?? "",
          files: entry.files,
          logical: entry.kind === "blobs" ? "" : humanBytes(entry.bytes),
          disk: humanBytes(entry.diskBytes),
          created: entry.createdAt ?? "",
          complete: entry.complete ? "yes" : "no",
        })),
      );
      process.stdout.write(
        `${entries.length} entries, ${humanBytes(logical)} logical, ${humanBytes(disk)} on disk in ${dir}\n`,
      );
    });
  cache
    .command("clear")
    .description("remove cached trees and shuffled copies (all, one repository's, or those older than an age)")
    .option("--dir <dir>", `the cache folder (default ${defaultWorkspaceCacheDir()})`)
    .option("--repo <owner/name>", "only this repository's")
    .option("--older-than <age>", "only those made longer ago than this (7d, 12h, 30m)")
    .action(async (options: { dir?: string; repo?: string; olderThan?: string }) => {
      const dir = options.dir ?? defaultWorkspaceCacheDir();
      const removed = await clearCachedWorkspaces(dir, {
        ...(options.repo ? { repo: options.repo } : {}),
        ...(options.olderThan ? { olderThanMs: parseAge(options.olderThan) } : {}),
      });
      const freed = removed.reduce((sum, entry) => sum + entry.diskBytes, 0);
      const blobs = removed.find((entry) => entry.kind === "blobs");
      const entries = removed.filter((entry) => entry.kind !== "blobs");
      progress(
        `removed ${entries.length} entries${blobs ? ` and ${blobs.files} stored files no entry links to any more` : ""} (${humanBytes(freed)}) from ${dir}`,
      );
      for (const entry of entries) process.stdout.write(`${entry.path}\n`);
    });
}
