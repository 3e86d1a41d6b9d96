// `npm run notebooks`: open the notebooks interactively, with this clone's own kernel.
//   1. writes the tslab kernel spec for this clone (.jupyter/kernels/loclab-tslab/kernel.json
//      holds the absolute path of this clone's tslab, so it is written anew each time: a moved
//      or second clone never points at another install);
//   2. starts a notebook front end with JUPYTER_PATH pointing at it, bound to 127.0.0.1:
//      JupyterLab (`jupyter lab`) when installed, else the classic notebook (`jupyter notebook`);
//      with neither, it prints how to install one and exits 1.
// Extra arguments are passed to the front end (e.g. `npm run notebooks -- --port 8890`).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ensureNodeDependencies, buildPackages } from "./lib/ensure-node-deps.mjs";
import { registerTslabKernel } from "./lib/tslab-kernel.mjs";
import { repoRoot } from "./lib/run.mjs";

ensureNodeDependencies();
buildPackages();
const { jupyterPath, kernelJson } = await registerTslabKernel(repoRoot);
process.stderr.write(`notebooks: kernel "TypeScript (loclab)" written to ${kernelJson}\n`);
const env = { ...process.env, JUPYTER_PATH: jupyterPath, PYDEVD_DISABLE_FILE_VALIDATION: "1" };
const has = (sub) => spawnSync("jupyter", [sub, "--version"], { env, stdio: "ignore" }).status === 0;
const frontEnd = has("lab") ? "lab" : has("notebook") ? "notebook" : undefined;
if (!frontEnd) {
  process.stderr.write(
    "notebooks: no notebook front end found. Install one, then run this again:\n" +
      "  sudo apt-get install --no-install-recommends jupyter-notebook      (Debian's classic notebook)\n" +
      "  python3 -m pip install jupyterlab                                  (JupyterLab from the Python package index)\n",
  );
  process.exit(1);
}
const result = spawnSync(
  "jupyter",
  [frontEnd, "--ip", "127.0.0.1", "--notebook-dir", join(repoRoot, "notebooks"), ...process.argv.slice(2)],
  { env, stdio: "inherit" },
);
process.exit(result.status ?? 1);
