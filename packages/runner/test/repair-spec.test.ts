import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_JUDGE_RUBRIC } from "@loclab/agent";
import { cellLabel } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import {
  armCallBudget,
  attemptKey,
  localizationStageKey,
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
    // A control shapes only the localizer stage: refused without an arm handed the localizer's prediction.
    expect(problem({ ...BASE, kind: "repair", controls: [{ kind: "plain" }, { kind: "masked" }] })).toMatch(
      /^spec\.json: \$\.controls\[1\]: a repair run's fixer works on the real repository in its container; a control \(masked:modules\) shapes only what its localizer stage sees/,
    );
    expect(
      problem({ ...BASE, kind: "repair", controls: [{ kind: "mismatch", seed: 1 }], repair: { arms: ["findings"] } }),
    ).toMatch(/^spec\.json: \$\.controls\[0\]: /);
    expect(
      problem({ ...BASE, kind: "repair", controls: [{ kind: "masked" }], repair: { arms: ["findings", "two-agent"] } }),
    ).toMatch(/no two-agent arm/);
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

  it("the transfer's arms: baseline is read as single; judged needs a judge, one model, its own endpoints; masked with a localizer arm", () => {
    const spec = parseRunSpec(
      {
        ...BASE,
        kind: "repair",
        controls: [{ kind: "plain" }, { kind: "masked" }],
        repair: { arms: ["baseline", "locations", "findings", "judged", "oracle"] },
        judge: { endpoints: [{ baseURL: "http://127.0.0.1:8001/v1", model: "judge" }], rubric: "rubric.json" },
      },
      { baseDir: "/work/x" },
    );
    expect(spec.repair?.arms).toEqual(["single", "locations", "findings", "judged", "oracle"]);
    expect(spec.judge).toMatchObject({ threshold: 4, temperature: 0, rubric: "/work/x/rubric.json" });
    expect(spec.judge?.endpoints[0]?.maxConcurrency).toBe(1);
    expect(problem({ ...BASE, kind: "repair", repair: { arms: ["judged"] } })).toMatch(
      /^spec\.json: \$\.judge: the judged arm needs a judge/,
    );
    expect(problem({ ...BASE, kind: "repair", repair: { arms: ["single", "baseline"] } })).toBe(
      "spec.json: $.repair.arms: an arm is listed twice",
    );
    const judge = (endpoints: unknown[], extra = {}) => ({ ...BASE, kind: "repair", judge: { endpoints, ...extra } });
    expect(
      problem(
        judge([
          { baseURL: "http://a:1/v1", model: "j" },
          { baseURL: "http://b:1/v1", model: "k" },
        ]),
      ),
    ).toMatch(/^spec\.json: \$\.judge\.endpoints\[1\]\.model: every judge endpoint serves the same model/);
    expect(problem(judge([{ baseURL: "http://a:1/v1", model: "j" }], { threshold: 6 }))).toMatch(
      /^spec\.json: \$\.judge\.threshold/,
    );
    expect(problem({ ...BASE, judge: { endpoints: [{ baseURL: "http://a:1/v1", model: "j" }] } })).toMatch(
      /^spec\.json: \$\.judge: a judge grades a repair run's findings: it needs kind: repair/,
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

  it("planRun: the localizer arms share one stage key per instance × seed × control, a localization run's key; the judge is in the judged arm's key alone", async () => {
    const dir = await mkdtemp(join(tmpdir(), "loclab-repair-plan-"));
    const benchmark = join(dir, "bench.jsonl");
    await writeFile(
      benchmark,
      `${JSON.stringify({ instance_id: "a__x-1", repo: "a/x", base_commit: "c0", problem_statement: "p", patch: "" })}\n`,
    );
    const rubric = join(dir, "rubric.json");
    const judge = { endpoints: [{ baseURL: "http://127.0.0.1:8001/v1", model: "judge" }] };
    const spec = (extra: Record<string, unknown> = {}, judgeExtra: Record<string, unknown> = {}) =>
      parseRunSpec({
        ...BASE,
        benchmark,
        kind: "repair",
        seeds: [1, 2],
        repair: { arms: ["single", "locations", "findings", "judged"] },
        judge: { ...judge, ...judgeExtra },
        ...extra,
      });
    const plan = await planRun(spec());
    const byArm = (p: typeof plan, arm: string, seed = 1) =>
      p.attempts.find((attempt) => attempt.cell.arm === arm && attempt.cell.seed === seed)!;
    const stage = (p: typeof plan, arm: string, seed = 1) => localizationStageKey(p, byArm(p, arm, seed));
    expect(stage(plan, "locations")).toBe(stage(plan, "judged"));
    expect(stage(plan, "locations", 2)).not.toBe(stage(plan, "locations", 1));
    // The stage's key is what a localization run of the same settings keys the attempt with.
    const localization = await planRun(parseRunSpec({ ...BASE, benchmark, seeds: [1, 2] }));
    expect(localization.attempts[0]!.key).toBe(stage(plan, "findings"));
    // Another localizer setting: new keys for the localizer arms, the baseline's unchanged.
    const hotter = await planRun(spec({ localizer: { temperature: 0.5 } }));
    expect(byArm(hotter, "single").key).toBe(byArm(plan, "single").key);
    expect(byArm(hotter, "findings").key).not.toBe(byArm(plan, "findings").key);
    // Another threshold or rubric: only the judged arm's keys change.
    const stricter = await planRun(spec({}, { threshold: 4.5 }));
    expect(byArm(stricter, "findings").key).toBe(byArm(plan, "findings").key);
    expect(byArm(stricter, "judged").key).not.toBe(byArm(plan, "judged").key);
    await writeFile(
      rubric,
      JSON.stringify({ criteria: [{ ...DEFAULT_JUDGE_RUBRIC.criteria[0], question: "Other?" }] }),
    );
    const other = await planRun(spec({}, { rubric, weights: { rootCause: 1 } }));
    expect(other.judge?.rubricDigest).not.toBe(plan.judge?.rubricDigest);
    expect(byArm(other, "judged").key).not.toBe(byArm(plan, "judged").key);
    expect(byArm(other, "findings").key).toBe(byArm(plan, "findings").key);
    // A rubric that is not one, or a weight naming no criterion: errors naming the field.
    await expect(planRun(spec({}, { rubric, weights: { novelty: 1 } }))).rejects.toThrow(
      /^\$\.judge\.weights\.novelty: the rubric has no criterion novelty \(it has rootCause\)/,
    );
    await writeFile(
      rubric,
      JSON.stringify({ criteria: [{ id: "x", name: "X", question: "?", levels: { "1": "a" } }] }),
    );
    await expect(planRun(spec({}, { rubric }))).rejects.toThrow(
      /^\$\.judge\.rubric: .*rubric\.json: criteria\.0\.levels\.2/,
    );
  });
});
