import { existsSync } from "node:fs";
import { lstat, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type Docker from "dockerode";
import { defaultPipCache, defaultRootCache, defaultWheelCache } from "./caches.js";
import { pythonFromLabels } from "./env-image.js";
import { LOCAL_IMAGE_PREFIX } from "./image-names.js";
import { describePythonChoice } from "./python-choice.js";
import { defaultValidationDir, readValidation } from "./validation.js";

export type LocalImageKind = "base" | "env" | "instance";

/** One of loclab's local images, as `loclab evaluate images ls` lists it. */
export interface LocalImage {
  name: string;
  id: string;
  kind: LocalImageKind;
  /** The repository × version (env, instance) or the instance (instance). */
  repo?: string;
  version?: string;
  instance?: string;
  /** What Python it has and why ("3.9.2 for 3.6 (nearest-newer)"). */
  python?: string;
  created: string;
  /** The image's size with every layer it uses. */
  sizeBytes: number;
  /**
   * The layers it adds to the image it is built from (env on base, instance on env): a base's
   * whole size, an env's installed packages, an instance's checkout and wheels. Summed over
   * images, each layer is counted once.
   */
  ownBytes: number;
  /** Instance images: a calibration's verdict (true / false), or undefined when never calibrated. */
  validated?: boolean;
  /** Containers (running or not) made from it: such an image is never pruned. */
  containers: number;
  /** Its other names (a prebuilt name given to a local image): pruning removes only loclab's name then. */
  otherTags: string[];
}

/** A cache folder on the host and what it holds. */
export interface CacheUse {
  name: "roots" | "wheels" | "pip" | "validations";
  path: string;
  bytes: number;
  entries: number;
}

export interface ImageInventory {
  images: LocalImage[];
  caches: CacheUse[];
  /** Per kind: images and the bytes they add (each layer counted once, with the image that made it). */
  totals: Record<LocalImageKind, { images: number; ownBytes: number }>;
}

export interface InventoryOptions {
  rootCache?: string;
  wheelCache?: string;
  pipCache?: string;
  validationDir?: string;
}

function kindOf(labels: Record<string, string>): LocalImageKind | undefined {
  const kind = labels["loclab.kind"];
  return kind === "base" || kind === "env" || kind === "instance" ? kind : undefined;
}

/** "3.9.2", or "3.9.2 for 3.6 (nearest-newer)" when the rule chose another Python; a base has only its own. */
function pythonOf(labels: Record<string, string>): string | undefined {
  const chosen = pythonFromLabels(labels);
  if (!chosen) return labels["loclab.python"];
  if (chosen.rule === "exact") return chosen.actual;
  return describePythonChoice({ python: chosen.actual, requested: chosen.requested, rule: chosen.rule });
}

/**
 * Bytes and entries of a folder (files counted through every level; symbolic links not
 * followed), on the folder's own file system only, as `du -x`: a base image's root being built
 * (`<root>.partial-…`) has the host's /proc mounted in it, whose entries a walk cannot read.
 * An entry removed while the walk goes (that build finishing) is not counted.
 */
export async function folderUse(path: string): Promise<{ bytes: number; entries: number }> {
  if (!existsSync(path)) return { bytes: 0, entries: 0 };
  const top = await readdir(path);
  const device = (await stat(path)).dev;
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(ifGone);
    for (const entry of entries ?? []) {
      const full = join(dir, entry.name);
      if (!entry.isDirectory() && !entry.isFile()) continue;
      const info = await lstat(full).catch(ifGone);
      if (!info || info.dev !== device) continue;
      if (entry.isDirectory()) await walk(full);
      else bytes += info.size;
    }
  };
  await walk(path);
  return { bytes, entries: top.length };
}

/** undefined for a path that vanished under a walk; any other error is thrown. */
function ifGone(error: NodeJS.ErrnoException): undefined {
  if (error.code === "ENOENT") return undefined;
  throw error;
}

/**
 * loclab's images in the engine (named `loclab-swe/…`, kind from their labels) with sizes from
 * the engine's disk usage (`/system/df`) and what each adds to its parent, instance images'
 * validations, and the host caches their builds use.
 */
export async function imageInventory(docker: Docker, options: InventoryOptions = {}): Promise<ImageInventory> {
  const df = (await docker.df()) as {
    Images?: {
      Id: string;
      RepoTags?: string[] | null;
      Size: number;
      SharedSize: number;
      Containers: number;
      Created: number;
      Labels?: Record<string, string> | null;
    }[];
  };
  const validationDir = options.validationDir ?? defaultValidationDir();
  const sizes = new Map((df.Images ?? []).map((image) => [image.Id, image.Size]));
  const images: LocalImage[] = [];
  for (const image of df.Images ?? []) {
    const name = (image.RepoTags ?? []).find((tag) => tag.startsWith(`${LOCAL_IMAGE_PREFIX}/`));
    const labels = image.Labels ?? {};
    const kind = kindOf(labels);
    if (!name || !kind) continue;
    const python = pythonOf(labels);
    const validation = kind === "instance" ? await readValidation(validationDir, image.Id) : undefined;
    images.push({
      name,
      id: image.Id,
      kind,
      ...(labels["loclab.repo"] ? { repo: labels["loclab.repo"] } : {}),
      ...(labels["loclab.version"] ? { version: labels["loclab.version"] } : {}),
      ...(labels["loclab.instance"] ? { instance: labels["loclab.instance"] } : {}),
      ...(python ? { python } : {}),
      created: new Date(image.Created * 1000).toISOString(),
      sizeBytes: image.Size,
      ownBytes: ownBytes(image.Size, kind, labels, sizes),
      ...(validation ? { validated: validation.validated } : {}),
      containers: Math.max(0, image.Containers),
      otherTags: (image.RepoTags ?? []).filter((tag) => tag !== name && tag !== "<none>:<none>"),
    });
  }
  images.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : KIND_ORDER[a.kind] - KIND_ORDER[b.kind]));
  const totals = {
    base: { images: 0, ownBytes: 0 },
    env: { images: 0, ownBytes: 0 },
    instance: { images: 0, ownBytes: 0 },
  };
  for (const image of images) {
    totals[image.kind].images += 1;
    totals[image.kind].ownBytes += image.ownBytes;
  }
  const caches: CacheUse[] = [];
  for (const [name, path] of [
    ["roots", options.rootCache ?? defaultRootCache()],
    ["wheels", options.wheelCache ?? defaultWheelCache()],
    ["pip", options.pipCache ?? defaultPipCache()],
    ["validations", validationDir],
  ] as const)
    caches.push({ name, path, ...(await folderUse(path)) });
  return { images, caches, totals };
}

const KIND_ORDER: Record<LocalImageKind, number> = { base: 0, env: 1, instance: 2 };

/** An image's size less its parent's (from the labels: an env names its base, an instance its env); the whole size without one. */
function ownBytes(
  size: number,
  kind: LocalImageKind,
  labels: Record<string, string>,
  sizes: Map<string, number>,
): number {
  const parent = kind === "env" ? labels["loclab.base"] : kind === "instance" ? labels["loclab.env"] : undefined;
  const parentSize = parent ? sizes.get(parent) : undefined;
  return parentSize === undefined ? size : Math.max(0, size - parentSize);
}

export interface PruneOptions extends InventoryOptions {
  /** Kinds of image to remove; default instance and env (a base takes a debootstrap to make again). */
  kinds?: readonly LocalImageKind[];
  /** Also empty these host caches. */
  caches?: readonly CacheUse["name"][];
  /** Only say what would go. */
  dryRun?: boolean;
  onProgress?: (line: string) => void;
}

export interface PruneResult {
  removed: string[];
  /** Images kept because a container uses them, or the engine refused (named with why). */
  kept: { name: string; reason: string }[];
  /** The removed images' own bytes (each layer once). */
  freedBytes: number;
  clearedCaches: CacheUse[];
}

/**
 * Removes loclab's images of the given kinds, instances before envs before bases (children
 * first), never one a container uses; then empties the caches asked for.
 */
export async function pruneImages(docker: Docker, options: PruneOptions = {}): Promise<PruneResult> {
  const kinds = new Set(options.kinds ?? ["instance", "env"]);
  const inventory = await imageInventory(docker, options);
  const result: PruneResult = { removed: [], kept: [], freedBytes: 0, clearedCaches: [] };
  const order = [...inventory.images]
    .filter((image) => kinds.has(image.kind))
    .sort((a, b) => KIND_ORDER[b.kind] - KIND_ORDER[a.kind]);
  for (const image of order) {
    if (image.containers > 0) {
      result.kept.push({ name: image.name, reason: `${image.containers} container(s) use it` });
      continue;
    }
    if (!options.dryRun) {
      try {
        // By name: an image with other names keeps them (and its layers); only loclab's name goes.
        await docker.getImage(image.name).remove({ force: false });
      } catch (error) {
        result.kept.push({ name: image.name, reason: (error as Error).message.split("\n")[0]! });
        continue;
      }
    }
    const alsoNamed = image.otherTags.length > 0 ? `; still named ${image.otherTags.join(", ")}` : "";
    options.onProgress?.(`${options.dryRun ? "would remove" : "removed"} ${image.name} (${image.kind})${alsoNamed}`);
    result.removed.push(image.name);
    if (image.otherTags.length === 0) result.freedBytes += image.ownBytes;
  }
  for (const cache of inventory.caches.filter((entry) => options.caches?.includes(entry.name))) {
    if (!options.dryRun) await rm(cache.path, { recursive: true, force: true });
    options.onProgress?.(`${options.dryRun ? "would empty" : "emptied"} ${cache.path}`);
    result.clearedCaches.push(cache);
  }
  return result;
}
