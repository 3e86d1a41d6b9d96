import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SIGNATURE_BYTES, fillSignature, needleBits, signatureHas } from "../src/index.js";

const signatureOf = (bytes: Uint8Array) => {
  const signature = new Uint8Array(SIGNATURE_BYTES);
  fillSignature(bytes, signature);
  return signature;
};
const swapAsciiCase = (bytes: Uint8Array, flips: boolean[]) =>
  Uint8Array.from(bytes, (byte, i) =>
    flips[i % flips.length] && ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)) ? byte ^ 0x20 : byte,
  );

describe("trigram signatures", () => {
  it("never rule out a file that holds the needle, in any A–Z case (random bytes and text)", () => {
    const text = fc.oneof(
      fc.uint8Array({ minLength: 0, maxLength: 400 }),
      fc.string({ maxLength: 300 }).map((s) => new Uint8Array(Buffer.from(s, "utf8"))),
    );
    fc.assert(
      fc.property(
        text,
        fc.nat(),
        fc.integer({ min: 3, max: 40 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        (content, start, length, flips) => {
          fc.pre(content.length >= 3);
          const from = start % (content.length - 2);
          const needle = content.subarray(from, Math.min(content.length, from + length));
          fc.pre(needle.length >= 3);
          const signature = signatureOf(content);
          expect(signatureHas(signature, 0, needleBits(needle) as Uint32Array)).toBe(true);
          expect(signatureHas(signature, 0, needleBits(swapAsciiCase(needle, flips)) as Uint32Array)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("rule out most files that do not hold the needle (the point of them)", () => {
    const file = Buffer.from("def select_related(self, *fields):\n    return self._chain()\n".repeat(20));
    const signature = signatureOf(file);
    expect(signatureHas(signature, 0, needleBits(Buffer.from("select_related")) as Uint32Array)).toBe(true);
    const absent = ["RelatedPopulator", "get_related_selections", "FieldError(", "def deferred_to_data", "zzzqqq"];
    expect(
      absent.filter((needle) => signatureHas(signature, 0, needleBits(Buffer.from(needle)) as Uint32Array)),
    ).toEqual([]);
    expect(needleBits(Buffer.from("ab"))).toBeUndefined();
  });
});
