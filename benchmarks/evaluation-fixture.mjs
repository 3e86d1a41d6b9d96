// Evaluation time per instance on the Docker engine (issue 17): the calc fixture's gold patch
// evaluated with its env and instance images built first (the base image is reused when present;
// its own build is timed when it is not), then 5 times with the images reused, then from the
// result cache; the engine's data root sampled every 250 ms for the peak disk growth. Needs a
// Docker engine (DOCKER_HOST) and debootstrap for a first base build; skips without an engine.
//
//   DOCKER_HOST=unix:///path/docker.sock node benchmarks/evaluation-fixture.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectDocker } from "@loclab/docker";
import { DEFAULT_BASE_RECIPE, baseImageFor, evaluatePredictions, findImage } from "@loclab/evaluation";
import { buildCalcFixture, calcEvaluationRow, CALC_EVALUATION_SPECS } from "@loclab/fixtures";

let docker;
try {
  ({ docker } = await connectDocker());
} catch (error) {
  console.log(`evaluation-fixture: skipped (${error.message})`);
  process.exit(0);
}
const root = (await docker.info()).DockerRootDir;
const used = async () => {
  const stats = await statfs(root);
  return (Number(stats.blocks) - Number(stats.bfree)) * Number(stats.bsize);
};
const work = mkdtempSync(join(tmpdir(), "loclab-bench-eval-"));
const fixture = await buildCalcFixture({ dir: join(work, "calc") });
const row = await calcEvaluationRow(fixture);
// The fixture's env and instance images go first, so the first evaluation builds them.
for (const image of await docker.listImages({ filters: { label: ["loclab.repo=acme/calc"] } }))
  await docker
    .getImage(image.Id)
    .remove({ force: true })
    .catch(() => undefined);
const baseName = baseImageFor(DEFAULT_BASE_RECIPE);
const basePresent = (await findImage(docker, baseName)) !== undefined;
const start = await used();
let peak = start;
const sampler = setInterval(() => void used().then((bytes) => (peak = Math.max(peak, bytes))), 250);
const evaluate = async (runId, cacheDir) => {
  const t = performance.now();
  const result = await evaluatePredictions({
    predictions: [{ instance_id: row.instance_id, model_name_or_path: "gold", model_patch: row.patch }],
    instances: [row],
    runId,
    out: join(work, "out"),
    images: "local",
    repos: fixture.mirrors,
    specs: CALC_EVALUATION_SPECS,
    cacheDir,
    minFreeBytes: 2 ** 30,
  });
  if (result.outcomes[0].status !== "resolved")
    throw new Error(`${runId}: ${result.outcomes[0].status} ${result.outcomes[0].infra_failure_detail ?? ""}`);
  return (performance.now() - t) / 1000;
};
const first = await evaluate("first", join(work, "cache"));
const reused = [];
for (let i = 0; i < 5; i += 1) reused.push(await evaluate(`reused-${i}`, false));
const cached = await evaluate("cached", join(work, "cache"));
clearInterval(sampler);
peak = Math.max(peak, await used());
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(
  `first evaluation (${basePresent ? "base image reused; env and instance images built" : "base, env and instance images built"}): ${first.toFixed(1)} s`,
);
console.log(
  `images reused (5 runs): median ${median(reused).toFixed(2)} s (${reused.map((s) => s.toFixed(2)).join(", ")}); first / reused ${(first / median(reused)).toFixed(1)}×`,
);
console.log(
  `from the result cache: ${cached.toFixed(2)} s (${(median(reused) / cached).toFixed(0)}× faster than running the container)`,
);
console.log(`peak growth of the engine's data root (${root}): ${((peak - start) / 2 ** 20).toFixed(0)} MiB`);
await fixture.dispose();
rmSync(work, { recursive: true, force: true });
