// Build time and disk per kind of local evaluation image (issue 35): for each Python base
// (bullseye's 3.9, bookworm's 3.11), the base image built three ways — from nothing
// (debootstrap into an empty root cache), from a kept root (docker import only: what a fresh
// engine, e.g. a CI run, pays), and reused (present in the engine) — then the calc fixture's env
// and instance images on it: first build (empty wheel and pip caches), rebuild from the wheel
// cache (image removed), reused. Disk: the root cache, and what only each image holds in the
// engine (`/system/df`). Needs a Docker engine (DOCKER_HOST), root and debootstrap; skips without
// an engine. Takes 5–8 minutes (two debootstraps).
//
//   DOCKER_HOST=unix:///path/docker.sock node benchmarks/evaluation-images.mjs [--json FILE]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectDocker } from "@loclab/docker";
import {
  baseImageFor,
  baseRecipe,
  choosePython,
  ensureBaseImage,
  ensureEnvImage,
  ensureInstanceImage,
  folderUse,
  imageInventory,
  planEnvironment,
  PYTHON_BASES,
} from "@loclab/evaluation";
import { buildCalcFixture, CALC_EVALUATION_SPECS, calcEvaluationRow } from "@loclab/fixtures";
import { machine } from "./lib/measure.mjs";

let docker;
try {
  ({ docker } = await connectDocker());
} catch (error) {
  console.log(`evaluation-images: skipped (${error.message})`);
  process.exit(0);
}
const jsonAt = process.argv.indexOf("--json");
const work = mkdtempSync(join(tmpdir(), "loclab-bench-images-"));
const caches = { rootCache: join(work, "roots"), wheelCache: join(work, "wheels"), pipCache: join(work, "pip") };
const fixture = await buildCalcFixture({ dir: join(work, "calc") });
const row = await calcEvaluationRow(fixture);
const seconds = async (work) => {
  const start = performance.now();
  const value = await work();
  return { value, s: (performance.now() - start) / 1000 };
};
const mib = (bytes) => Math.round(bytes / 2 ** 20);
const unique = async (name) => {
  const inventory = await imageInventory(docker, caches);
  return inventory.images.find((image) => image.name === name)?.ownBytes ?? 0;
};
const remove = (ref) => docker.getImage(ref.id).remove({ force: true });
const results = [];
for (const { python, suite } of PYTHON_BASES) {
  const recipe = baseRecipe(suite);
  // From nothing: a root cache of this benchmark's own, and no image of that name in the engine
  // (an image other images are built on is only untagged).
  await docker
    .getImage(baseImageFor(recipe))
    .remove({ force: true })
    .catch(() => undefined);
  const scratch = await seconds(() => ensureBaseImage(docker, { recipe, ...caches }));
  await remove(scratch.value.image);
  const imported = await seconds(() => ensureBaseImage(docker, { recipe, ...caches }));
  const reusedBase = await seconds(() => ensureBaseImage(docker, { recipe, ...caches }));
  const base = reusedBase.value;
  const root = await folderUse(join(caches.rootCache));
  // The fixture's evaluation spec (no install: calc runs from its checkout) on this base's Python.
  const spec = { ...CALC_EVALUATION_SPECS["acme/calc"]["0.1"], python, pip_packages: ["six==1.16.0", "pytest==8.3.3"] };
  const plan = planEnvironment({
    repo: row.repo,
    version: row.version,
    spec,
    environmentCommit: row.base_commit,
    readFile: () => undefined,
  });
  const choice = choosePython(spec.python);
  const envFirst = await seconds(() => ensureEnvImage(docker, base, plan, choice, caches));
  await remove(envFirst.value);
  const envWheels = await seconds(() => ensureEnvImage(docker, base, plan, choice, caches));
  const envReused = await seconds(() => ensureEnvImage(docker, base, plan, choice, caches));
  const input = {
    instanceId: row.instance_id,
    repo: row.repo,
    baseCommit: row.base_commit,
    spec,
    mirrorGitDir: join(fixture.mirrors, "acme__calc.git"),
    env: envReused.value,
    builder: base.builder,
  };
  const instanceFirst = await seconds(() => ensureInstanceImage(docker, input, caches));
  const instanceReused = await seconds(() => ensureInstanceImage(docker, input, caches));
  const entry = {
    python: base.builder.python,
    suite,
    base: {
      first_s: scratch.s,
      from_kept_root_s: imported.s,
      reused_s: reusedBase.s,
      image_mib: mib(await unique(base.image.name)),
      root_cache_mib: mib(root.bytes),
    },
    env: {
      first_s: envFirst.s,
      from_wheel_cache_s: envWheels.s,
      reused_s: envReused.s,
      image_mib: mib(await unique(envReused.value.name)),
    },
    instance: {
      first_s: instanceFirst.s,
      reused_s: instanceReused.s,
      image_mib: mib(await unique(instanceFirst.value.name)),
    },
  };
  results.push(entry);
  const f = (value) => value.toFixed(value < 1 ? 3 : 1);
  console.log(`Python ${entry.python} (${suite})`);
  console.log(
    `  base: ${f(entry.base.first_s)} s from nothing (debootstrap), ${f(entry.base.from_kept_root_s)} s from the kept root (import), ${f(entry.base.reused_s)} s reused; ${entry.base.image_mib} MiB in the engine, ${entry.base.root_cache_mib} MiB of roots kept`,
  );
  console.log(
    `  env: ${f(entry.env.first_s)} s first, ${f(entry.env.from_wheel_cache_s)} s from the wheel cache, ${f(entry.env.reused_s)} s reused; ${entry.env.image_mib} MiB of its own`,
  );
  console.log(
    `  instance: ${f(entry.instance.first_s)} s first, ${f(entry.instance.reused_s)} s reused; ${entry.instance.image_mib} MiB of its own`,
  );
}
if (jsonAt > 0)
  writeFileSync(process.argv[jsonAt + 1], `${JSON.stringify({ machine: machine(), results }, null, 2)}\n`);
await fixture.dispose();
rmSync(work, { recursive: true, force: true });
