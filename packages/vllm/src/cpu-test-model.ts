import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { runLogged } from "./run-logged.js";
import { vllmPythonDir } from "./cpu-install.js";

/** What `loclab-model.json` of a converted folder records: where it came from, what it holds. */
export interface ConvertedModel {
  /** The folder vLLM serves (`vllm serve DIR`). */
  dir: string;
  source: { file: string; sha256: string };
  /** sha256 of each file of the folder. */
  files: Record<string, string>;
  converted: boolean;
}

const RECORD = "loclab-model.json";

/**
 * The GGUF model as a Hugging Face folder for vLLM, made once per GGUF digest: the folder
 * `<cacheDir>/hf/<name>-<sha256[0..12]>` holds float32 safetensors, the config, the tokenizer
 * and the chat template (the same weights as the GGUF, dequantized), and `loclab-model.json`
 * with the GGUF's sha256 and every file's, written last. A folder without that record, or with
 * another source digest, is made again (in a sibling folder, then renamed into place).
 */
export async function ensureVllmModel(options: {
  gguf: { path: string; sha256: string };
  /** The Python of vLLM's environment (it has transformers, gguf and accelerate). */
  python: string;
  cacheDir: string;
  onProgress?: (line: string) => void;
}): Promise<ConvertedModel> {
  const name = basename(options.gguf.path).replace(/\.gguf$/i, "");
  const dir = join(options.cacheDir, "hf", `${name}-${options.gguf.sha256.slice(0, 12)}`);
  const existing = readConvertedModel(dir);
  if (existing && existing.source.sha256 === options.gguf.sha256) return { ...existing, converted: false };
  const building = `${dir}.partial-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  await mkdir(dirname(dir), { recursive: true });
  options.onProgress?.(`converting ${options.gguf.path} for vLLM (transformers, float32 safetensors) into ${dir}`);
  try {
    await runLogged(options.python, [join(vllmPythonDir(), "gguf_to_hf.py"), options.gguf.path, building], {
      say: options.onProgress,
      env: { ...process.env, HF_HUB_OFFLINE: "1", TRANSFORMERS_OFFLINE: "1" },
    });
    const files: Record<string, string> = {};
    for (const file of (await readdir(building)).sort()) files[file] = await sha256File(join(building, file));
    const record = { source: { file: basename(options.gguf.path), sha256: options.gguf.sha256 }, files };
    await writeFile(join(building, RECORD), `${JSON.stringify(record, null, 2)}\n`);
    await rm(dir, { recursive: true, force: true });
    await rename(building, dir);
    return { dir, ...record, converted: true };
  } catch (error) {
    await rm(building, { recursive: true, force: true });
    throw error;
  }
}

/** The record of a converted folder, or undefined when it has none (not made, or interrupted). */
export function readConvertedModel(dir: string): Omit<ConvertedModel, "converted"> | undefined {
  const file = join(dir, RECORD);
  if (!existsSync(file)) return undefined;
  try {
    const record = JSON.parse(readFileSync(file, "utf8")) as Omit<ConvertedModel, "dir" | "converted">;
    return { dir, source: record.source, files: record.files };
  } catch {
    return undefined;
  }
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}
