import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join, relative } from "node:path";
import type { LoraAdapter } from "./server-spec.js";

/**
 * Loads an adapter into a running server (`POST /v1/load_lora_adapter`); the server must run
 * with runtime updates allowed (`lora.runtimeUpdates`, vLLM's `VLLM_ALLOW_RUNTIME_LORA_UPDATING`).
 * FGL serves a localizer and a fixer adapter on one base model this way.
 */
export async function loadLoraAdapter(baseURL: string, adapter: LoraAdapter): Promise<void> {
  const root = baseURL.replace(/\/v1\/?$/, "");
  const response = await fetch(`${root}/v1/load_lora_adapter`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ lora_name: adapter.name, lora_path: adapter.path }),
  });
  if (!response.ok)
    throw new Error(
      `${root}: loading LoRA adapter ${adapter.name} (${adapter.path}) answered HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`,
    );
}

/**
 * A digest of an adapter folder: sha256 over its files' relative paths and contents, in path
 * order; null for a Hugging Face id (no local files to hash; the revision names it).
 */
export async function adapterDigest(path: string): Promise<string | null> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return null;
  const files: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) files.push(full);
    }
  };
  await walk(path);
  files.sort();
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${relative(path, file)}\0`);
    hash.update(
      createHash("sha256")
        .update(await readFile(file))
        .digest("hex"),
    );
  }
  return hash.digest("hex");
}
