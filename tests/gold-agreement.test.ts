import { describe, expect, it } from "vitest";
import { compareFunctionGold } from "@loclab/scoring";

// compareFunctionGold (issue 15): every difference between the exact function gold and a peer's
// explained by kind, on hand-made cases that mirror what LocAgent's and CoSIL's golds do on Lite.

const one = (exact: string[], peer: string[], classes?: string[]) =>
  compareFunctionGold(new Map([["i", exact]]), new Map([["i", peer]]), classes ? { classes: new Set(classes) } : {})
    .perInstance[0];

describe("compareFunctionGold", () => {
  it("equal sets agree, in any order and with repeats", () => {
    expect(one(["a.py:A.f", "a.py:g"], ["a.py:g", "a.py:A.f", "a.py:g"])).toEqual({
      instanceId: "i",
      same: true,
      differences: [],
    });
  });

  it("names each kind of difference", () => {
    // LocAgent: the enclosing method of a nested def (sympy__sympy-13177: Mod.eval for Mod.eval.doit).
    expect(one(["m.py:Mod.eval.doit"], ["m.py:Mod.eval"])?.differences).toEqual([
      { kind: "enclosing-of-nested", exact: "m.py:Mod.eval.doit", peer: "m.py:Mod.eval" },
    ]);
    // …also when the exact gold has the enclosing function too (sphinx-doc__sphinx-7975).
    expect(one(["i.py:I.c", "i.py:I.c.key"], ["i.py:I.c"])?.differences).toEqual([
      { kind: "enclosing-of-nested", exact: "i.py:I.c.key", peer: "i.py:I.c" },
    ]);
    // CoSIL: the nested def without its parents (sympy__sympy-17139: _f for _TR56._f).
    expect(one(["f.py:_TR56._f"], ["f.py:_f"])?.differences).toEqual([
      { kind: "nested-without-parents", exact: "f.py:_TR56._f", peer: "f.py:_f" },
    ]);
    // LocAgent counts a constructor as its class.
    expect(one(["e.py:Factors.__init__"], ["e.py:Factors"])?.differences).toEqual([
      { kind: "class-for-constructor", exact: "e.py:Factors.__init__", peer: "e.py:Factors" },
    ]);
    // A method appended to a class: the exact gold has the class.
    expect(one(["c.py:Info.__str__", "c.py:Info"], ["c.py:Info.__str__"], ["c.py:Info"])?.differences).toEqual([
      { kind: "class-level-edit", exact: "c.py:Info" },
    ]);
    // The @@ header's function when the edit is in the next one (sphinx-doc__sphinx-8595).
    expect(one(["d.py:M.get_object_members"], ["d.py:M.get_module_members"])?.differences).toEqual([
      { kind: "other-definition", peer: "d.py:M.get_module_members" },
      { kind: "missing-definition", exact: "d.py:M.get_object_members" },
    ]);
  });

  it("counts instances by kind and compares only instances both golds have", () => {
    const agreement = compareFunctionGold(
      new Map([
        ["a", ["x.py:f"]],
        ["b", ["x.py:A.f.g", "x.py:B.h.k"]],
        ["c", ["x.py:f"]],
      ]),
      new Map([
        ["a", ["x.py:f"]],
        ["b", ["x.py:A.f", "x.py:B.h"]],
      ]),
    );
    expect(agreement).toMatchObject({ instances: 2, same: 1 });
    expect(agreement.byKind["enclosing-of-nested"]).toBe(2);
    expect(agreement.instancesByKind["enclosing-of-nested"]).toBe(1);
  });
});
