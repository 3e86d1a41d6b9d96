import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cellLabel } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import {
  armCallBudget,
  attemptKey,
  parseRunSpec,
  planRun,
  RepairSpecSchema,
  repairKeyConfig,
  RunSpecError,
  runCells,
} from "../src/index.js";

const BASE = {
  benchmark: "lite",
  endpoints: [{ baseURL: "http://127.0.0.1:8000/v1", model: "m" }],
  repos: "mirrors/",
  out: "runs/r",
};

function problem(value: unknown): string {
  try {
    parseRunSpec(value, { baseDir: "/work/x", source: "spec.json" });
  } catch (error) {
    expect(error).toBeInstanceOf(RunSpecError);
    return (error as Error).message;
  }
  throw new Error("the spec was accepted");
}

describe("repair run specs (kind: repair)", () => {
  it("defaults are FGL's harness: one arm, 36 calls (44 with two agents), 8 minutes, 300 s commands, local images; paths made absolute", () => {
    const spec = parseRunSpec(
      {
        ...BASE,
        kind: "repair",
        repair: { evaluation: { specs: "specs.json" }, images: { harnessEnvironments: "og" } },
      },
      { baseDir: "/work/x" },
    );
    const repair = spec.repair!;
    expect(repair).toMatchObject({
      arms: ["single"],
      wallSeconds: 480,
      commandTimeoutSeconds: 300,
      localizer: { maxCalls: 15, maxLocations: 8, contextTokens: 6000 },
      images: { source: "local", pull: true, harnessEnvironments: "/work/x/og" },
      evaluation: { timeoutSeconds: 1800, specs: "/work/x/specs.json" },
    });
    expect(armCallBudget(repair, "single")).toBe(36);
    expect(armCallBudget(repair, "two-agent")).toBe(44);
    expect(armCallBudget({ callBudget: 6 }, "two-agent")).toBe(6);
    // A repair run without a repair block gets every default.
    expect(parseRunSpec({ ...BASE, kind: "repair" }).repair).toEqual(
      parseRunSpec({ ...BASE, kind: "repair", repair: {} }).repair,
    );
    // A localization run has none.
    expect(parseRunSpec(BASE).repair).toBeUndefined();
  });

  it("refuses a repair block without kind: repair, a control other than plain, an arm twice or unknown", () => {
    expect(problem({ ...BASE, repair: {} })).toBe("spec.json: $.repair: a repair block needs kind: repair");
    expect(problem({ ...BASE, kind: "repair", controls: [{ kind: "plain" }, { kind: "masked" }] })).toMatch(
      /^spec\.json: \$\.controls\[1\]: a repair run works on the real repository in its container: only the plain control/,
    );
    expect(problem({ ...BASE, kind: "repair", repair: { arms: ["single", "single"] } })).toBe(
      "spec.json: $.repair.arms: an arm is listed twice",
    );
    expect(problem({ ...BASE, kind: "repair", repair: { arms: ["three-agent"] } })).toMatch(
      /^spec\.json: \$\.repair\.arms\[0\]/,
    );
    expect(problem({ ...BASE, kind: "repair", repair: { callBudget: 0 } })).toMatch(
      /^spec\.json: \$\.repair\.callBudget/,
    );
  });

  it("cells are seeds × arms; a localization run's cells and keys have no arm", () => {
    const repair = parseRunSpec({ ...BASE, kind: "repair", seeds: [1, 2], repair: { arms: ["single", "two-agent"] } });
    expect(runCells(repair).map(cellLabel)).toEqual([
      "seed-1/plain/single",
      "seed-1/plain/two-agent",
      "seed-2/plain/single",
      "seed-2/plain/two-agent",
    ]);
    expect(runCells(parseRunSpec({ ...BASE, seeds: [1] })).map(cellLabel)).toEqual(["seed-1/plain"]);
    const key = { benchmark: "b", instanceId: "a__b-1", seed: 1, control: { kind: "plain" as const }, config: {} };
    expect(attemptKey({ ...key, arm: undefined })).toBe(attemptKey(key));
    expect(attemptKey({ ...key, arm: "single" })).not.toBe(attemptKey({ ...key, arm: "two-agent" }));
  });

  it("the key's repair settings leave out timeouts, the evaluation and file locations; the budget and the image source are in", () => {
    const base = RepairSpecSchema.parse({});
    const config = repairKeyConfig(base);
    expect(config).not.toHaveProperty("requestTimeoutSeconds");
    expect(config).not.toHaveProperty("evaluation");
    expect(config).not.toHaveProperty("arms");
    expect(config.images).toBe("local");
    expect(
      repairKeyConfig(RepairSpecSchema.parse({ requestTimeoutSeconds: 5, evaluation: { timeoutSeconds: 9 } })),
    ).toEqual(config);
    expect(repairKeyConfig(RepairSpecSchema.parse({ callBudget: 10 }))).not.toEqual(config);
    expect(repairKeyConfig(RepairSpecSchema.parse({ images: { source: "prebuilt" } }))).not.toEqual(config);
  });

  it("planRun: one key per instance × seed × arm, the arm in the key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "loclab-repair-plan-"));
    const benchmark = join(dir, "bench.jsonl");
    await writeFile(
      benchmark,
      ["a__x-1", "a__x-2"]
        .map(
          (id) =>
            `${JSON.stringify({ instance_id: id, repo: "a/x", base_commit: "c0", problem_statement: "p", patch: "" })}\n`,
        )
        .join(""),
    );
    const plan = await planRun(
      parseRunSpec({ ...BASE, benchmark, kind: "repair", seeds: [3], repair: { arms: ["single", "two-agent"] } }),
    );
    expect(plan.attempts.map((attempt) => `${attempt.instance.instance_id} ${attempt.cellLabel}`)).toEqual([
      "a__x-1 seed-3/plain/single",
      "a__x-1 seed-3/plain/two-agent",
      "a__x-2 seed-3/plain/single",
      "a__x-2 seed-3/plain/two-agent",
    ]);
    expect(new Set(plan.attempts.map((attempt) => attempt.key)).size).toBe(4);
    expect(plan.config).toMatchObject({ kind: "repair", model: "m", repair: { images: "local" } });
    expect(plan.config).not.toHaveProperty("localizer");
  });
});
