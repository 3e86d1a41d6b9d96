/**
 * Strings to dense integer codes (0, 1, 2, … in order of first sight), as a dataframe library
 * factorizes a column: scoring compares codes instead of strings, so that each path or
 * symbol is hashed once when it is coded, and every later test (is it gold? seen before?) is
 * an array read. One interner serves a whole run set (`prepareGold`), so gold and every run's
 * predictions share codes.
 */
export class Interner {
  private readonly codes = new Map<string, number>();
  /** The string of each code. */
  readonly strings: string[] = [];

  /** The code of `value`, given a new one the first time it is seen. */
  code(value: string): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.strings.length;
      this.codes.set(value, code);
      this.strings.push(value);
    }
    return code;
  }

  get size(): number {
    return this.strings.length;
  }
}

/**
 * A set of codes that empties in O(1): a code is in it when its stamp equals the current one,
 * and `clear` moves to the next stamp. Membership tests and O(n) de-duplication without a
 * `Set` per instance.
 */
export class CodeMarks {
  private stamps = new Uint32Array(1024);
  private stamp = 1;

  /** Empties the set. */
  clear(): void {
    this.stamp += 1;
    if (this.stamp === 0xffffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  add(code: number): void {
    if (code >= this.stamps.length) this.grow(code);
    this.stamps[code] = this.stamp;
  }

  has(code: number): boolean {
    return code < this.stamps.length && this.stamps[code] === this.stamp;
  }

  private grow(code: number): void {
    const next = new Uint32Array(Math.max(2 * this.stamps.length, code + 1));
    next.set(this.stamps);
    this.stamps = next;
  }
}

/**
 * A cache of a string function over codes (`moduleIdOf`, stripping `.__init__`, the symbol
 * name): each distinct input is derived once per run set, then read from an array.
 */
export class DerivedCodes {
  private derived = new Int32Array(1024).fill(-1);

  constructor(
    private readonly interner: Interner,
    private readonly derive: (value: string) => string,
  ) {}

  of(code: number): number {
    if (code >= this.derived.length) {
      const next = new Int32Array(Math.max(2 * this.derived.length, code + 1)).fill(-1);
      next.set(this.derived);
      this.derived = next;
    }
    let result = this.derived[code] as number;
    if (result < 0) {
      result = this.interner.code(this.derive(this.interner.strings[code] as string));
      this.derived[code] = result;
    }
    return result;
  }
}
