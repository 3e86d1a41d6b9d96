import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join } from "node:path";
import { type ModelScript, startScriptedModelServer } from "@loclab/agent";
import { buildCalcFixture, type CalcFixture, calcSolvingTurns } from "@loclab/fixtures";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loclabBin } from "./helpers.js";

// `loclab localize` against hostile inputs and interrupted runs (issue 12: items 1–5, 12):
// the real CLI process, the calc fixture (real git), the scripted server over real HTTP.
let fixture: CalcFixture;
let out: string;
beforeEach(async () => {
  fixture = await buildCalcFixture();
  out = join(dirname(fixture.source), "run");
});
afterEach(async () => {
  await fixture.dispose();
});

async function localize(
  script: ModelScript,
  extra: string[] = [],
  options: { benchmark?: string; env?: Record<string, string> } = {},
) {
  const server = await startScriptedModelServer({ script, models: ["scripted"] });
  try {
    return await execa(
      process.execPath,
      [
        loclabBin,
        "localize",
        "--benchmark",
        options.benchmark ?? fixture.benchmark,
        "--repos",
        fixture.mirrors,
        "--endpoint",
        server.url,
        "--model",
        "scripted",
        "--out",
        out,
        "--backoff",
        "0",
        ...extra,
      ],
      { reject: false, env: { LOCLAB_QUIET: "0", ...options.env } },
    );
  } finally {
    await server.close();
  }
}
const lines = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");

describe("loclab localize: hostile input and interrupted runs", () => {
  it("an instance_id that climbs out of --out is refused at the schema boundary; nothing is written outside", async () => {
    const bad = join(dirname(fixture.source), "bad.jsonl");
    writeFileSync(bad, `${JSON.stringify({ ...fixture.row, instance_id: "../../../escaped" })}\n`);
    const result = await localize(calcSolvingTurns(), [], { benchmark: bad });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /bad\.jsonl:1: \.\.\/\.\.\/\.\.\/escaped: instance_id: instance_id must be at most 200 letters/,
    );
    expect(existsSync(join(out, "..", "..", "..", "escaped.traj.jsonl"))).toBe(false);
    expect(readdirSync(dirname(dirname(dirname(out)))).some((name) => name.startsWith("escaped"))).toBe(false);
  });

  it("a second run on a folder in use is refused with the holder; a stale lock is named and taken over", async () => {
    await mkdir(out, { recursive: true });
    writeFileSync(
      join(out, ".loclab.lock"),
      `${JSON.stringify({ pid: process.pid, host: hostname(), startedAt: "2026-12-01T00:00:00.000Z", command: "loclab localize" })}\n`,
    );
    const refused = await localize(calcSolvingTurns());
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`is in use by another loclab run (pid ${process.pid} on host ${hostname()}`);
    expect(existsSync(join(out, "attempts.jsonl"))).toBe(false);

    writeFileSync(
      join(out, ".loclab.lock"),
      `${JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), startedAt: "2026-12-01T00:00:00.000Z" })}\n`,
    );
    const taken = await localize(calcSolvingTurns());
    expect(taken.exitCode, taken.stderr).toBe(0);
    expect(taken.stderr).toContain("a stale lock (pid 4206649");
    expect(existsSync(join(out, ".loclab.lock"))).toBe(false);
  });

  it("a torn last line from a kill is set aside (ledger) or dropped from the derived predictions, said, and the run resumes on clean files", async () => {
    const first = await localize(calcSolvingTurns());
    expect(first.exitCode, first.stderr).toBe(0);
    const predictions = join(out, "cells", "seed-none", "plain", "predictions.jsonl");
    writeFileSync(
      join(out, "attempts.jsonl"),
      `${readFileSync(join(out, "attempts.jsonl"), "utf8")}{"kind":"loclab.run-record","schemaVersion":1,"key":"ab`,
    );
    writeFileSync(predictions, `${readFileSync(predictions, "utf8")}{"schemaVersion":1,"instanceId":"acme__ca`);
    const result = await localize(calcSolvingTurns());
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /attempts\.jsonl:2: a torn last line \(55 bytes, from a crash\) was set aside in .*attempts\.jsonl\.torn-/,
    );
    // The predictions file is derived from the ledger: its torn line is dropped and said, and the
    // file rebuilt from the ledger (nothing is lost: the ledger holds every prediction).
    expect(result.stderr).toMatch(
      /predictions\.jsonl: 1 line\(s\) the ledger does not give were dropped; rebuilt from the ledger/,
    );
    expect(lines(predictions).map((line) => (JSON.parse(line) as { instanceId: string }).instanceId)).toEqual([
      "acme__calc-1",
    ]);
    expect(lines(join(out, "attempts.jsonl"))).toHaveLength(1);
  });

  it("an endpoint failure leaves the key open and exits 1; rerunning retries it, every attempt's trajectory kept", async () => {
    const failed = await localize(() => ({ fault: "http-500" }));
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain("1 of 1 attempt key(s) have no final outcome; continue with: loclab run --resume");
    const retried = await localize(calcSolvingTurns());
    expect(retried.exitCode, retried.stderr).toBe(0);
    const records = lines(join(out, "attempts.jsonl")).map(
      (line) => JSON.parse(line) as { attempt: number; outcome: string; retries: unknown[] },
    );
    expect(records.map(({ attempt, outcome }) => ({ attempt, outcome }))).toEqual([
      { attempt: 1, outcome: "infra_error" },
      { attempt: 2, outcome: "infra_error" },
      { attempt: 3, outcome: "infra_error" },
      { attempt: 4, outcome: "infra_error" },
      { attempt: 5, outcome: "finished" },
    ]);
    expect(records[0]?.retries).toHaveLength(3);
    const dir = join(out, "trajectories", "seed-none", "plain", "acme__calc-1");
    expect(readdirSync(dir).sort()).toEqual([1, 2, 3, 4, 5].map((n) => `attempt-${n}.traj.jsonl`));
    expect(JSON.parse(lines(join(dir, "attempt-1.traj.jsonl"))[0] as string)).toMatchObject({
      outcome: { exit: "error" },
    });
    expect(JSON.parse(lines(join(dir, "attempt-5.traj.jsonl"))[0] as string)).toMatchObject({
      outcome: { exit: "submitted" },
    });
  });

  it("a request the server refuses (HTTP 400) is the attempt's final outcome: not retried", async () => {
    const refused = await localize([{ fault: "http-400" }]);
    expect(refused.exitCode, refused.stderr).toBe(0);
    expect(refused.stdout).toContain("no prediction: model_error 1");
    const again = await localize(calcSolvingTurns());
    expect(again.exitCode).toBe(0);
    expect(lines(join(out, "attempts.jsonl"))).toHaveLength(1);
  });

  it("an API key the model echoes and URL credentials reach no file the run writes", async () => {
    const key = "sk-live-ECHO-0000111122223333";
    const echo: ModelScript = [
      {
        content: `the key is ${key}`,
        toolCalls: [{ name: "search_code", arguments: JSON.stringify({ query: "def average" }) }],
      },
      ...calcSolvingTurns().slice(1),
    ];
    const server = await startScriptedModelServer({ script: echo, models: ["scripted"] });
    try {
      const endpoint = server.url.replace("http://", "http://bob:pa55word-xyz@");
      const result = await execa(
        process.execPath,
        [
          loclabBin,
          "localize",
          "--benchmark",
          fixture.benchmark,
          "--repos",
          fixture.mirrors,
          "--endpoint",
          endpoint,
          "--model",
          "scripted",
          "--out",
          out,
          "--api-key-env",
          "LOCLAB_HARDENING_KEY",
        ],
        {
          reject: false,
          env: { LOCLAB_HARDENING_KEY: key },
        },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      const written = [
        "cells/seed-none/plain/predictions.jsonl",
        "attempts.jsonl",
        "manifest.json",
        "sessions.jsonl",
        "trajectories/seed-none/plain/acme__calc-1/attempt-1.traj.jsonl",
      ]
        .map((file) => readFileSync(join(out, file), "utf8"))
        .join("\n");
      expect(written).toContain("the key is [redacted]");
      for (const secret of [key, "pa55word-xyz", "bob:"]) {
        expect(written).not.toContain(secret);
        expect(result.stderr + result.stdout).not.toContain(secret);
      }
    } finally {
      await server.close();
    }
  });
});
