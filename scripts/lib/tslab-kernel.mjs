// Register the project's own tslab kernel, inside the repository.
//
// Why not `npx tslab install`: it writes into the user's or the system's Jupyter
// directories, needs a `python3` with jupyter_client (not the one on our PATH), and
// records the bare command "tslab", which only works when tslab is on PATH. We write the
// same kernel.json it would (see node_modules/tslab/python/install.py: argv with
// "--config-path" and "{connection_file}" as separate items, display_name, language),
// with the absolute path of this checkout's tslab, into <repo>/.jupyter (git-ignored),
// and point JUPYTER_PATH there.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export const TSLAB_KERNEL_NAME = "loclab-tslab";
export const TSLAB_KERNEL_DISPLAY_NAME = "TypeScript (loclab)";

/**
 * Write <repoRoot>/.jupyter/kernels/loclab-tslab/kernel.json.
 * @param {string} repoRoot absolute path of the repository
 * @returns {Promise<{ jupyterPath: string, kernelName: string, kernelJson: string }>}
 *   `jupyterPath` is the value for the JUPYTER_PATH environment variable.
 */
export async function registerTslabKernel(repoRoot) {
  const tslab = join(repoRoot, "node_modules", ".bin", "tslab");
  if (!existsSync(tslab)) throw new Error(`${tslab} not found: run "npm install" at the repository root`);
  const jupyterPath = join(repoRoot, ".jupyter");
  const kernelDir = join(jupyterPath, "kernels", TSLAB_KERNEL_NAME);
  await mkdir(kernelDir, { recursive: true });
  const kernelJson = join(kernelDir, "kernel.json");
  const spec = {
    argv: [tslab, "kernel", "--config-path", "{connection_file}"],
    display_name: TSLAB_KERNEL_DISPLAY_NAME,
    language: "typescript",
  };
  await writeFile(kernelJson, `${JSON.stringify(spec, null, 2)}\n`);
  return { jupyterPath, kernelName: TSLAB_KERNEL_NAME, kernelJson };
}
