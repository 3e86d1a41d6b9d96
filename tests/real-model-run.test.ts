import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCalcFixture, CALC_ISSUE } from "@loclab/fixtures";
import { parseRunSpec, startRun } from "@loclab/runner";
import { runLayout } from "@loclab/schemas";
import { startModelServer, type ModelServer } from "@loclab/serve";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

// The runner against a real model: `loclab serve`'s server on the test model, the calc
// fixture (a planted bug in a real git repository), real tool calls through a JSON grammar.
let server: ModelServer;
let work: string;
let fixture: Awaited<ReturnType<typeof buildCalcFixture>>;
beforeAll(async () => {
  server = await startModelServer({ modelPath: inject("testModelPath"), port: 0, parallel: 1 });
  work = await mkdtemp(join(tmpdir(), "loclab-real-run-"));
  fixture = await buildCalcFixture({ dir: work });
});
afterAll(async () => {
  await server?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A trajectory without what differs between two runs by design: wall-clock times, the run folder and the server's port. */
function withoutRunSpecifics(path: string): unknown[] {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        if (/At$/.test(key) || key === "run" || key === "baseURL") continue;
        out[key] = strip(inner);
      }
      return out;
    }
    return value;
  };
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => strip(JSON.parse(line)));
}

describe("a run against a real model", () => {
  it("the same seed and temperature give the same trajectory, twice; tool calls are real and the outcome is typed", async () => {
    const run = (name: string) =>
      startRun(
        parseRunSpec({
          benchmark: fixture.benchmark,
          seeds: [3],
          controls: [{ kind: "plain" }],
          endpoints: [{ baseURL: server.baseURL, model: server.modelName }],
          localizer: { maxTurns: 3, temperature: 0.8, maxOutputTokens: 160 },
          repos: fixture.mirrors,
          out: join(work, name),
        }),
      );
    const [first, second] = [await run("a"), await run("b")];
    expect(first).toMatchObject({ keys: 1, done: 1, complete: true });
    expect(second.outcomes).toEqual(first.outcomes);
    const [a = [], b = []] = ["a", "b"].map((name) =>
      withoutRunSpecifics(runLayout.trajectory(join(work, name), "seed-3/plain", CALC_ISSUE.instance_id, 1)),
    );
    expect(b).toEqual(a);
    // Byte for byte, once the run-specific fields are gone.
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const steps = a.slice(1) as Array<{ toolCalls?: Array<{ name: string }>; usage?: { promptTokens: number } }>;
    expect(steps.length).toBeGreaterThanOrEqual(1);
    // The model's calls went through the server's tool grammar: every call names a real tool.
    const names = steps.flatMap((step) => step.toolCalls ?? []).map((call) => call.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      expect(["view_file", "search_code", "repo_tree", "connected_tree", "submit_localization"]).toContain(name);
    // Real token counts from the real tokenizer; the trajectory's total is the sum of its steps'.
    const prompts = steps.map((step) => step.usage?.promptTokens ?? 0);
    expect(prompts.every((n) => n > 500)).toBe(true);
    expect((a[0] as { usage: { promptTokens: number } }).usage.promptTokens).toBe(
      prompts.reduce((sum, n) => sum + n, 0),
    );
  }); // CPU inference: two runs of three turns over ≈ 2,000-token prompts
});
