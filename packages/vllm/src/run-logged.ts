import { spawn } from "node:child_process";

/**
 * Runs a setup command (venv, pip, a conversion script) to its end: resolves with its stdout,
 * or rejects naming the command, its exit code and the last line it printed; the end of its
 * output (4,000 characters) goes to `say` on failure. Output beyond that is not kept.
 */
export function runLogged(
  command: string,
  args: readonly string[],
  options: { say?: (line: string) => void; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: options.env ?? process.env });
    let stdout = "";
    let tail = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout = (stdout + chunk.toString()).slice(-65_536);
      tail = (tail + chunk.toString()).slice(-4000);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
    });
    child.on("error", (error) => reject(new Error(`${command}: ${error.message}`)));
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else {
        options.say?.(tail.trim());
        reject(new Error(`${command} ${args.join(" ")} exited ${code}: ${tail.trim().split("\n").at(-1) ?? ""}`));
      }
    });
  });
}
