import { describe, expect, it } from "vitest";
import { limiter, sharedByKey } from "../src/build-slots.js";

describe("build slots", () => {
  it("never runs more than the limit at once, and runs every work in the order asked", async () => {
    const slot = limiter(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const works = Array.from({ length: 5 }, (_, index) =>
      slot(async () => {
        started.push(index);
        active += 1;
        peak = Math.max(peak, active);
        await new Promise<void>((resolve) => releases.push(resolve));
        active -= 1;
        return index;
      }),
    );
    // Release one at a time as they start, until all have run.
    while (started.length < 5 || releases.length > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      releases.shift()?.();
    }
    expect(await Promise.all(works)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(() => limiter(0)).toThrow(/whole number ≥ 1/);
  });

  it("a failed work frees its slot", async () => {
    const slot = limiter(1);
    await expect(slot(async () => Promise.reject(new Error("build failed")))).rejects.toThrow("build failed");
    expect(await slot(async () => "next")).toBe("next");
  });

  it("callers of one key at once share its make; a failed make is tried again by the next caller", async () => {
    const once = sharedByKey<string>();
    let makes = 0;
    const make = async () => {
      makes += 1;
      return `image-${makes}`;
    };
    expect(await Promise.all([once("a", make), once("a", make)])).toEqual(["image-1", "image-1"]);
    expect(makes).toBe(1);
    let failing = true;
    const flaky = async () => {
      if (failing) throw new Error("no space left");
      return "ok";
    };
    await expect(once("b", flaky)).rejects.toThrow("no space left");
    failing = false;
    await new Promise((resolve) => setImmediate(resolve));
    expect(await once("b", flaky)).toBe("ok");
  });
});
