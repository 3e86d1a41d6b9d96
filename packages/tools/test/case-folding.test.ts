import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ASCII_LOWERING_CHARACTERS, asciiLowerCase } from "../src/index.js";

describe("case folding for the content pack's case-insensitive filter", () => {
  it("the only characters outside ASCII whose toLowerCase() holds an ASCII character are U+0130 and U+212A (every code point checked)", () => {
    const found: string[] = [];
    for (let cp = 0x80; cp <= 0x10ffff; cp += 1) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue; // lone surrogates are not characters
      const lower = String.fromCodePoint(cp).toLowerCase();
      if (/[\x00-\x7f]/.test(lower)) found.push(String.fromCodePoint(cp));
    }
    expect(found).toEqual([...ASCII_LOWERING_CHARACTERS]);
  });

  it("asciiLowerCase lower-cases A–Z and keeps every other byte, at every length and alignment", () => {
    const reference = (bytes: Buffer) =>
      Buffer.from(bytes.map((byte) => (byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte)));
    const all = Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256));
    expect(asciiLowerCase(all)).toEqual(reference(all));
    for (const length of [0, 1, 2, 3, 4, 5, 7, 8, 9, 1000, 65_537]) {
      const bytes = randomBytes(length + 3);
      for (const offset of [0, 1, 3]) {
        const view = bytes.subarray(offset, offset + length);
        expect(asciiLowerCase(view)).toEqual(reference(view));
      }
    }
  });
});
