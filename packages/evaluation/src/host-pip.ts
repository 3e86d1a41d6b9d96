import { spawn } from "node:child_process";
import { ImageBuildError } from "./image-build-error.js";

/**
 * `python -m pip wheel --wheel-dir DIR …` on the host (it reaches the Python package index; the
 * image builds do not), with extra environment (PIP_CONSTRAINT, setuptools-scm's version). A
 * failure is an `ImageBuildError` for `image` with pip's error lines.
 */
export function hostPipWheel(
  python: string,
  dir: string,
  args: readonly string[],
  env: Record<string, string>,
  image: string,
  what: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      python,
      ["-m", "pip", "wheel", "--disable-pip-version-check", "--no-input", "--wheel-dir", dir, ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, ...env },
      },
    );
    const tail: string[] = [];
    const take = (chunk: Buffer) => {
      tail.push(chunk.toString("utf8"));
      if (tail.length > 60) tail.shift();
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error) => reject(new ImageBuildError(image, `pip wheel: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) return resolve();
      const lines = tail
        .join("")
        .split("\n")
        .filter((line) => /error|Error|No matching|Could not/.test(line));
      reject(
        new ImageBuildError(
          image,
          `pip wheel of ${what} on the host exited ${code}: ${lines.slice(-8).join(" | ") || tail.join("").slice(-800)}`,
        ),
      );
    });
  });
}
