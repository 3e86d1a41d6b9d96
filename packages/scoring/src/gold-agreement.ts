/**
 * How one function-level id of a peer's gold differs from the exact gold of the same instance
 * (docs/definitions.md §2–3, issue 15):
 * - `enclosing-of-nested`: the peer names the function around a nested def the patch edits
 *   (`path:A.f` where the exact gold is `path:A.f.inner`): its parser does not descend into
 *   function bodies (LocAgent);
 * - `nested-without-parents`: the peer names the nested def without its parents (`path:inner`
 *   where the exact gold is `path:A.f.inner`): the `@@` header names the def alone (CoSIL);
 * - `class-for-constructor`: the peer names the class where the edit is in its `__init__`;
 * - `class-level-edit`: the exact gold has the class itself (code of the class body outside its
 *   methods, or a method appended to it) and the peer does not;
 * - `other-definition`: the peer names a definition the exact gold does not, none of the above
 *   (the `@@` header's function when the edit is in the next one: sphinx-doc__sphinx-8595);
 * - `missing-definition`: an exact id the peer lacks, none of the above.
 */
export type GoldDifferenceKind =
  | "enclosing-of-nested"
  | "nested-without-parents"
  | "class-for-constructor"
  | "class-level-edit"
  | "other-definition"
  | "missing-definition";

export interface GoldDifference {
  kind: GoldDifferenceKind;
  /** The exact gold's id, when one is involved. */
  exact?: string;
  /** The peer's id, when one is involved. */
  peer?: string;
}

export interface InstanceGoldAgreement {
  instanceId: string;
  /** The two sets are equal. */
  same: boolean;
  differences: GoldDifference[];
}

export interface GoldAgreement {
  /** Instances in both golds. */
  instances: number;
  same: number;
  /** Differences by kind, over all instances (one instance can have several). */
  byKind: Record<GoldDifferenceKind, number>;
  /** Instances with at least one difference of a kind. */
  instancesByKind: Record<GoldDifferenceKind, number>;
  perInstance: InstanceGoldAgreement[];
}

const KINDS: readonly GoldDifferenceKind[] = [
  "enclosing-of-nested",
  "nested-without-parents",
  "class-for-constructor",
  "class-level-edit",
  "other-definition",
  "missing-definition",
];

/**
 * Compares function-level golds id by id (`path:Qualified.name`, as sets) and explains every
 * difference (`GoldDifferenceKind`). Only instances present in both maps are compared. Pure.
 *
 * @example compareFunctionGold(new Map([["i", ["a.py:A.f.g"]]]), new Map([["i", ["a.py:A.f"]]])).byKind["enclosing-of-nested"] // 1
 */
export function compareFunctionGold(
  exact: ReadonlyMap<string, readonly string[]>,
  peer: ReadonlyMap<string, readonly string[]>,
  options: {
    /** Ids of the exact gold that are classes (`ExactGoldSymbol.kind`); without it, a class is recognised by a method id under it. */
    classes?: ReadonlySet<string>;
  } = {},
): GoldAgreement {
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<GoldDifferenceKind, number>;
  const instancesByKind = { ...byKind };
  const perInstance: InstanceGoldAgreement[] = [];
  for (const [instanceId, exactIds] of exact) {
    const peerIds = peer.get(instanceId);
    if (!peerIds) continue;
    const exactSet = new Set(exactIds);
    const peerSet = new Set(peerIds);
    const exactOnly = [...exactSet].filter((id) => !peerSet.has(id));
    const peerOnly = [...peerSet].filter((id) => !exactSet.has(id));
    const differences: GoldDifference[] = [];
    const explained = new Set<string>();
    for (const id of peerOnly) {
      const nestedInside = exactOnly.find(
        (other) => other.startsWith(`${id}.`) && !other.slice(id.length + 1).startsWith("__init__"),
      );
      const flattened = exactOnly.find((other) => pathOf(other) === pathOf(id) && other.endsWith(`.${nameOf(id)}`));
      const constructor = exactOnly.find((other) => other === `${id}.__init__`);
      if (constructor) {
        differences.push({ kind: "class-for-constructor", exact: constructor, peer: id });
        explained.add(constructor);
      } else if (nestedInside) {
        differences.push({ kind: "enclosing-of-nested", exact: nestedInside, peer: id });
        for (const other of exactOnly) if (other.startsWith(`${id}.`)) explained.add(other);
      } else if (flattened) {
        differences.push({ kind: "nested-without-parents", exact: flattened, peer: id });
        explained.add(flattened);
      } else differences.push({ kind: "other-definition", peer: id });
    }
    for (const id of exactOnly) {
      if (explained.has(id)) continue;
      // The peer names the function around this nested def (and nothing for the def itself).
      const enclosing = [...peerSet].find((other) => id.startsWith(`${other}.`) && exactSet.has(other));
      if (enclosing) {
        differences.push({ kind: "enclosing-of-nested", exact: id, peer: enclosing });
        continue;
      }
      const isClass = options.classes
        ? options.classes.has(id)
        : [...peerSet, ...exactSet].some((other) => other !== id && other.startsWith(`${id}.`));
      differences.push({ kind: isClass ? "class-level-edit" : "missing-definition", exact: id });
    }
    for (const kind of new Set(differences.map((difference) => difference.kind))) instancesByKind[kind] += 1;
    for (const difference of differences) byKind[difference.kind] += 1;
    perInstance.push({ instanceId, same: differences.length === 0, differences });
  }
  return {
    instances: perInstance.length,
    same: perInstance.filter((row) => row.same).length,
    byKind,
    instancesByKind,
    perInstance,
  };
}

function pathOf(id: string): string {
  return id.slice(0, id.indexOf(":"));
}

function nameOf(id: string): string {
  const name = id.slice(id.indexOf(":") + 1);
  return name.slice(name.lastIndexOf(".") + 1);
}
