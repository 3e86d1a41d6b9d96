import type { Command } from "commander";
import { progress } from "../progress.js";
import { printTable } from "../table.js";

const KINDS = ["base", "env", "instance"] as const;
const CACHES = ["roots", "wheels", "pip", "validations"] as const;

function gib(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(2)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function listOf<T extends string>(flag: string, text: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (text === undefined) return undefined;
  const items = text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
  for (const item of items)
    if (!allowed.includes(item as T)) throw new Error(`${flag}: "${item}" is not one of ${allowed.join(", ")}`);
  return items as T[];
}

/** `loclab evaluate images ls|prune`: loclab's local images and the host caches their builds use. */
export function registerEvaluateImagesCommand(evaluate: Command): void {
  const images = evaluate
    .command("images")
    .description("loclab's local evaluation images (base, env, instance) and their caches: list them, prune them");
  images
    .command("ls")
    .description(
      "list loclab's images with their Python, size, what each adds to the image it is built on, validation; the caches' disk use",
    )
    .option("--json", "print the inventory as JSON")
    .action(async (options: { json?: boolean }) => {
      const { connectDocker } = await import("@loclab/docker");
      const { imageInventory } = await import("@loclab/evaluation");
      const { docker } = await connectDocker({});
      const inventory = await imageInventory(docker);
      if (options.json) return void process.stdout.write(`${JSON.stringify(inventory)}\n`);
      if (inventory.images.length === 0) process.stdout.write("no loclab images in this engine\n");
      else
        printTable(
          inventory.images.map((image) => ({
            kind: image.kind,
            name: image.name,
            what: image.instance ?? (image.repo ? `${image.repo} ${image.version ?? ""}`.trim() : "-"),
            python: image.python ?? "-",
            size: gib(image.sizeBytes),
            adds: gib(image.ownBytes),
            validated: image.validated === undefined ? "-" : image.validated ? "yes" : "no",
            containers: image.containers,
          })),
        );
      printTable([
        ...KINDS.map((kind) => ({
          what: `${kind} images`,
          count: inventory.totals[kind].images,
          disk: gib(inventory.totals[kind].ownBytes),
          where: "the engine",
        })),
        ...inventory.caches.map((cache) => ({
          what: `${cache.name} cache`,
          count: cache.entries,
          disk: gib(cache.bytes),
          where: cache.path,
        })),
      ]);
    });
  images
    .command("prune")
    .description(
      "remove loclab's images (instance and env by default; never one a container uses) and, if asked, caches",
    )
    .option("--kind <kinds>", `comma-separated: ${KINDS.join(", ")} (default instance,env)`)
    .option("--all", "every kind of image, and every cache (roots, wheels, pip, validations)")
    .option("--caches <names>", `comma-separated caches to empty: ${CACHES.join(", ")}`)
    .option("--dry-run", "only say what would go")
    .option("--json", "print the result as JSON")
    .action(async (options: { kind?: string; all?: boolean; caches?: string; dryRun?: boolean; json?: boolean }) => {
      const kinds = options.all ? [...KINDS] : listOf("--kind", options.kind, KINDS);
      const caches = options.all ? [...CACHES] : listOf("--caches", options.caches, CACHES);
      const { connectDocker } = await import("@loclab/docker");
      const { pruneImages } = await import("@loclab/evaluation");
      const { docker } = await connectDocker({});
      const result = await pruneImages(docker, {
        ...(kinds ? { kinds } : {}),
        ...(caches ? { caches } : {}),
        ...(options.dryRun ? { dryRun: true } : {}),
        onProgress: progress,
      });
      if (options.json) return void process.stdout.write(`${JSON.stringify(result)}\n`);
      const verb = options.dryRun ? "would free" : "freed";
      process.stdout.write(
        `${result.removed.length} image(s) ${options.dryRun ? "would be " : ""}removed, ${verb} ${gib(result.freedBytes)}; ${result.clearedCaches.length} cache(s) ${options.dryRun ? "would be " : ""}emptied (${gib(result.clearedCaches.reduce((sum, cache) => sum + cache.bytes, 0))})\n`,
      );
      for (const kept of result.kept) process.stdout.write(`kept ${kept.name}: ${kept.reason}\n`);
    });
}
