import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MASK_LEVELS } from "@loclab/controls";
import { defaultWorkspaceCacheDir } from "@loclab/tools";
import { CONTROL_MASK_LEVELS, type Instance } from "@loclab/schemas";
import { describe, expect, it } from "vitest";
import {
  attemptKey,
  canonicalJson,
  jsonPath,
  loadRunSpec,
  metricSum,
  parseRunSpec,
  RunSpecError,
  selectInstances,
} from "../src/index.js";

// The minimum shape, verbatim.
const MINIMUM = {
  benchmark: "lite",
  instances: ["django__django-11099"],
  seeds: [1, 2, 3],
  controls: [{ kind: "plain" }, { kind: "masked" }, { kind: "shuffled", seed: 7 }, { kind: "mismatch", seed: 7 }],
  endpoints: [{ baseURL: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen3-30B-A3B", maxConcurrency: 8 }],
  localizer: { maxTurns: 20, toolMode: "native", temperature: 0.7 },
  repos: "mirrors/",
  out: "runs/qwen3-30b",
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

describe("run spec", () => {
  it("takes the issue's minimum shape; defaults filled; paths made absolute against the spec's folder", () => {
    const spec = parseRunSpec(MINIMUM, { baseDir: "/work/x" });
    expect(spec.controls[1]).toEqual({ kind: "masked", level: "modules" });
    expect(spec.repos).toBe("/work/x/mirrors/");
    expect(spec.out).toBe("/work/x/runs/qwen3-30b");
    // The workspace cache all runs share, outside the run folder.
    expect(spec.cacheDir).toBe(defaultWorkspaceCacheDir());
    expect(spec.cacheDir?.startsWith(spec.out)).toBe(false);
    expect(spec.benchmark).toBe("lite");
    expect(spec.localizer).toMatchObject({
      maxTurns: 20,
      toolMode: "native",
      temperature: 0.7,
      requestTimeoutSeconds: 300,
      maxLocations: 8,
    });
    expect(spec.endpoints[0]).toMatchObject({ maxConcurrency: 8, weight: 1 });
    expect(spec.retry.requestRetries).toBe(3);
  });

  it("refuses bad values and unknown keys with the JSON path of the field, in one line", () => {
    expect(problem({ ...MINIMUM, controls: [{ kind: "plain" }, { kind: "scrambled" }] })).toBe(
      "spec.json: $.controls[1].kind: unknown control kind; one of plain, masked, shuffled, mismatch",
    );
    expect(problem({ ...MINIMUM, seeds: [1, -2] })).toMatch(/^spec\.json: \$\.seeds\[1\]: .*>=0/);
    expect(problem({ ...MINIMUM, endpoints: [{ baseURL: "ftp://127.0.0.1/v1", model: "m" }] })).toBe(
      "spec.json: $.endpoints[0].baseURL: an http:// or https:// URL, e.g. http://127.0.0.1:8000/v1",
    );
    expect(problem({ ...MINIMUM, localizer: { maxTurn: 20 } })).toBe('spec.json: $.localizer: unknown key "maxTurn"');
    expect(problem({ ...MINIMUM, controls: [{ kind: "masked", level: "paths" }] })).toMatch(
      /^spec\.json: \$\.controls\[0\]\.level: /,
    );
    expect(problem({ ...MINIMUM, controls: [{ kind: "plain" }, { kind: "plain" }] })).toBe(
      "spec.json: $.controls[1]: control plain is listed twice (also controls[0])",
    );
    expect(problem({ ...MINIMUM, seeds: [3, 3] })).toBe(
      "spec.json: $.seeds[1]: seed 3 is listed twice (also seeds[0])",
    );
    expect(
      problem({
        ...MINIMUM,
        endpoints: [
          { baseURL: "http://a:1/v1", model: "m" },
          { baseURL: "http://b:1/v1", model: "other" },
        ],
      }),
    ).toMatch(/^spec\.json: \$\.endpoints\[1\]\.model: every endpoint of a run serves the same model/);
    expect(
      problem({ ...MINIMUM, endpoints: [{ baseURL: "http://a:1/v1", model: "m", apiKeyEnv: "sk-123 secret" }] }),
    ).toMatch(/^spec\.json: \$\.endpoints\[0\]\.apiKeyEnv: an environment variable name/);
    expect(problem({ ...MINIMUM, endpoints: [] })).toMatch(/^spec\.json: \$\.endpoints: /);
  });

  it("reads YAML and JSON files; a syntax error names the file and line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "loclab-spec-"));
    const yaml = join(dir, "spec.yaml");
    await writeFile(
      yaml,
      "benchmark: lite\nseeds: [1, 2]\nendpoints:\n  - baseURL: http://127.0.0.1:8000/v1\n    model: m\nrepos: mirrors\nout: runs/a\n",
    );
    const spec = await loadRunSpec(yaml);
    expect(spec.seeds).toEqual([1, 2]);
    expect(spec.out).toBe(join(dir, "runs/a"));
    const badYaml = join(dir, "bad.yaml");
    await writeFile(badYaml, "benchmark: lite\nseeds: [1, 2\nout: x\n");
    await expect(loadRunSpec(badYaml)).rejects.toThrow(new RegExp(`^${badYaml}:\\d+: not valid YAML`));
    const badJson = join(dir, "bad.json");
    await writeFile(badJson, '{\n  "benchmark": "lite",\n  "seeds": [1,,2]\n}\n');
    await expect(loadRunSpec(badJson)).rejects.toThrow(new RegExp(`^${badJson}:3: not valid JSON`));
    const unknownKey = join(dir, "unknown.yaml");
    await writeFile(
      unknownKey,
      "benchmark: lite\nendpoints: [{baseURL: 'http://h:1/v1', model: m}]\nrepos: r\nout: o\nbudget: {}\n",
    );
    await expect(loadRunSpec(unknownKey)).rejects.toThrow(`${unknownKey}: $: unknown key "budget"`);
    await expect(loadRunSpec(join(dir, "missing.json"))).rejects.toThrow(
      `${join(dir, "missing.json")}: cannot read the run spec: ENOENT`,
    );
  });

  it("the mask levels of run records are the masking code's levels", () => {
    expect([...CONTROL_MASK_LEVELS]).toEqual([...MASK_LEVELS]);
  });

  it("jsonPath quotes keys that are not identifiers", () => {
    expect(jsonPath(["endpoints", 0, "baseURL"])).toBe("$.endpoints[0].baseURL");
    expect(jsonPath(["a b"])).toBe('$["a b"]');
  });
});

describe("instance selection", () => {
  const instances = ["a__x-1", "a__x-2", "b__y-1", "b__y-2", "c__z-1", "c__z-2"].map(
    (id) => ({ instance_id: id, repo: id.startsWith("a") ? "a/x" : id.startsWith("b") ? "b/y" : "c/z" }) as Instance,
  );
  const ids = (picked: Instance[]) => picked.map((instance) => instance.instance_id);

  it("ids, repos, slice and a seeded sample, in the benchmark's order", () => {
    expect(ids(selectInstances(instances, ["c__z-1", "a__x-2"]))).toEqual(["a__x-2", "c__z-1"]);
    expect(ids(selectInstances(instances, { repos: ["B/Y", "c/z"], slice: { start: 1, end: 3 } }))).toEqual([
      "b__y-2",
      "c__z-1",
    ]);
    const sample = ids(selectInstances(instances, { sample: { n: 3, seed: 5 } }));
    expect(sample).toHaveLength(3);
    expect(ids(selectInstances(instances, { sample: { n: 3, seed: 5 } }))).toEqual(sample);
    expect([...sample].sort()).toEqual(sample);
    const other = new Set(
      [1, 2, 3, 4, 6, 7, 8, 9].map((seed) => ids(selectInstances(instances, { sample: { n: 3, seed } })).join()),
    );
    expect(other.size).toBeGreaterThan(1);
  });

  it("an id the benchmark lacks, or an empty selection, is an error naming the field", () => {
    expect(() => selectInstances(instances, ["a__x-1", "d__w-9"])).toThrow(
      "$.instances[1]: d__w-9 is not an instance of the benchmark",
    );
    expect(() => selectInstances(instances, { ids: ["d__w-9"] })).toThrow(
      "$.instances.ids[0]: d__w-9 is not an instance of the benchmark",
    );
    expect(() => selectInstances(instances, { repos: ["e/v"] })).toThrow(
      "$.instances: selects no instance of the benchmark",
    );
  });
});

describe("attempt keys", () => {
  const base = {
    benchmark: "lite",
    instanceId: "a__x-1",
    seed: 1,
    control: { kind: "plain" as const },
    config: { model: "m", localizer: { maxTurns: 20, temperature: 0.7 } },
  };
  it("the same experiment gives the same key whatever the key order; any setting changes it", () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
    const key = attemptKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(attemptKey({ ...base, config: { localizer: { temperature: 0.7, maxTurns: 20 }, model: "m" } })).toBe(key);
    expect(attemptKey({ ...base, seed: 2 })).not.toBe(key);
    expect(attemptKey({ ...base, control: { kind: "masked", level: "modules" } as never })).not.toBe(key);
    expect(attemptKey({ ...base, config: { model: "m", localizer: { maxTurns: 20, temperature: 0.8 } } })).not.toBe(
      key,
    );
  });
});

describe("Prometheus text", () => {
  it("sums a gauge over its label sets; a longer name with the same prefix is not it", () => {
    const text = [
      "# HELP vllm:num_requests_waiting Number of requests waiting.",
      "# TYPE vllm:num_requests_waiting gauge",
      'vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-30B-A3B"} 3.0',
      'vllm:num_requests_waiting{engine="1",model_name="a}b"} 2',
      "vllm:num_requests_waiting_by_reason 9",
      "vllm:num_requests_running 4 1700000000000",
    ].join("\n");
    expect(metricSum(text, "vllm:num_requests_waiting")).toBe(5);
    expect(metricSum(text, "vllm:num_requests_running")).toBe(4);
    expect(metricSum(text, "vllm:gpu_cache_usage_perc")).toBeUndefined();
  });
});
