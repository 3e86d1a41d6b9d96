import { describe, expect, it } from "vitest";
import { type FixerOutcome, signalTestTable } from "../src/index.js";

// The offline signal test table (docs/definitions.md §6) on hand-made outcomes whose counts are
// known: 10 paired tasks, the first edit on a patched location only with T in 2 tasks and only
// with S in 4 (exact McNemar p = 0.6875, the value scipy gives; see @loclab/statistics).

function outcomes(): FixerOutcome[] {
  const rows: FixerOutcome[] = [];
  for (let i = 0; i < 10; i += 1) {
    const task = `t${i}`;
    // First edit at a patched location: both in t0–t2; T only in t3–t4; S only in t5–t8; neither in t9.
    const firstT = i <= 4;
    const firstS = i <= 2 || (i >= 5 && i <= 8);
    rows.push({
      task,
      input: "T",
      firstEditAtPatchedLocation: firstT,
      anyHunkReproduced: i < 5,
      contextOverflow: i < 5,
      localizationSize: 1000,
    });
    rows.push({
      task,
      input: "S",
      firstEditAtPatchedLocation: firstS,
      anyHunkReproduced: i < 5,
      contextOverflow: i < 2,
      localizationSize: 725,
    });
  }
  rows.push({
    task: "lonely",
    input: "T",
    firstEditAtPatchedLocation: true,
    anyHunkReproduced: true,
    contextOverflow: false,
    localizationSize: 10,
  });
  return rows;
}

describe("signalTestTable", () => {
  it("counts, discordant pairs, exact McNemar p and the size change", () => {
    const table = signalTestTable(outcomes());
    expect(table.tasks).toBe(10);
    expect(table.unpaired).toEqual(["lonely"]);
    const [first, hunk, overflow] = table.binary;
    expect(first).toMatchObject({
      outcome: "firstEditAtPatchedLocation",
      teacher: 5,
      student: 7,
      b: 2,
      c: 4,
      teacherRate: 0.5,
      studentRate: 0.7,
    });
    expect(first?.p).toBeCloseTo(0.6875, 12);
    expect(hunk).toMatchObject({ b: 0, c: 0, p: 1, relativeChange: 0 });
    // 5 overflows from T, 2 from S: 60 % fewer, b = 3, c = 0 → p = 2 · 0.5³ = 0.25.
    expect(overflow).toMatchObject({ teacher: 5, student: 2, b: 3, c: 0 });
    expect(overflow?.p).toBeCloseTo(0.25, 12);
    expect(overflow?.relativeChange).toBeCloseTo(-0.6, 12);
    expect(table.size).toEqual({ teacherMean: 1000, studentMean: 725, relativeChange: -0.275, medianRatio: 0.725 });
  });

  it("refuses a task given twice for one input, and a bad size, naming the task", () => {
    const twice = [
      ...outcomes(),
      {
        task: "t1",
        input: "S" as const,
        firstEditAtPatchedLocation: true,
        anyHunkReproduced: true,
        contextOverflow: false,
        localizationSize: 1,
      },
    ];
    expect(() => signalTestTable(twice)).toThrow(/task t1 has two outcomes for input S/);
    expect(() =>
      signalTestTable([
        {
          task: "x",
          input: "T",
          firstEditAtPatchedLocation: true,
          anyHunkReproduced: true,
          contextOverflow: false,
          localizationSize: -1,
        },
      ]),
    ).toThrow(/task x \(T\): localizationSize/);
  });
});
