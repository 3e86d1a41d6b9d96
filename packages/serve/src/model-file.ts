import { open } from "node:fs/promises";

/** A model file that is missing, unreadable or not GGUF: one message naming the file. */
export class ModelFileError extends Error {
  constructor(
    readonly path: string,
    problem: string,
  ) {
    super(`model file ${path}: ${problem}`);
    this.name = "ModelFileError";
  }
}

/**
 * Checks before loading that `path` is a readable GGUF file (magic `GGUF` in its first four
 * bytes), so that a wrong path or a truncated download fails with its name instead of deep
 * inside llama.cpp.
 */
export async function checkModelFile(path: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelFileError(
      path,
      code === "ENOENT"
        ? "no such file"
        : code === "EACCES"
          ? "not readable (permission denied)"
          : code === "EISDIR"
            ? "is a folder, not a .gguf file"
            : String((error as Error).message),
    );
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new ModelFileError(path, "not a regular file");
    const magic = Buffer.alloc(4);
    const { bytesRead } = await handle.read(magic, 0, 4, 0);
    if (bytesRead < 4 || magic.toString("latin1") !== "GGUF")
      throw new ModelFileError(
        path,
        `not a GGUF model (its first bytes are ${JSON.stringify(magic.subarray(0, bytesRead).toString("latin1"))}, not "GGUF")`,
      );
  } catch (error) {
    if (error instanceof ModelFileError) throw error;
    throw new ModelFileError(path, (error as Error).message);
  } finally {
    await handle.close();
  }
}
