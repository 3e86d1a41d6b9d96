import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseRunSpec, planRun } from "@loclab/runner";
import { describe, expect, it } from "vitest";

// The example spec for GPU servers (docs/guide/running-experiments.md) must stay a valid, plannable run.
const readme = readFileSync(fileURLToPath(new URL("../docs/guide/running-experiments.md", import.meta.url)), "utf8");

describe("docs/guide/running-experiments.md: the example run spec for GPU servers", () => {
  it("parses and plans on Lite: 100 sampled instances × 3 seeds × 4 controls over 4 endpoints", async () => {
    const section = readme.slice(readme.indexOf("### A spec for GPU servers"));
    const block = /```json\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const spec = parseRunSpec(JSON.parse(block as string), { baseDir: "/tmp/loclab-readme" });
    const plan = await planRun(spec);
    expect(plan.instances).toHaveLength(100);
    expect(plan.cells).toHaveLength(12);
    expect(plan.attempts).toHaveLength(1200);
    expect(spec.endpoints.map((endpoint) => endpoint.baseURL)).toEqual(
      [0, 1, 2, 3].map((i) => `http://127.0.0.1:800${i}/v1`),
    );
    expect(plan.pairings.get(7)).toHaveLength(100);
  });
});
