import { z } from "zod";

/**
 * The issue-masking levels (docs/definitions.md §4), as run records name them. The masking code
 * itself (@loclab/controls `MaskLevel`) has the same three; a test holds the two lists equal.
 */
export const CONTROL_MASK_LEVELS = ["paths-only", "modules", "symbols"] as const;
export type ControlMaskLevel = (typeof CONTROL_MASK_LEVELS)[number];

/**
 * How much of the issue a shuffled cell rewrites (docs/definitions.md §4): `names` (default) the
 * layout and the project's names (owner, repository, top-level packages) wherever they stand as
 * a word; `layout-only` the layout alone. @loclab/controls has the same list; a test holds them equal.
 */
export const SHUFFLE_TEXT_POLICIES = ["names", "layout-only"] as const;

/**
 * The control an attempt ran under (docs/definitions.md §4), as run specs, run records and
 * predictions carry it: `plain` (the issue and repository as they are); `masked` (the issue
 * text masked at `level`; default `modules`, which masks dotted module paths too);
 * `shuffled` (the repository shuffled with `seed`, the issue mapped through the same renaming
 * under `textPolicy`, predictions mapped back); `mismatch` (the issue paired with another repository's snapshot by
 * the pairing seeded with `seed`).
 */
export const ControlSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("plain") }),
  z.strictObject({ kind: z.literal("masked"), level: z.enum(CONTROL_MASK_LEVELS).default("modules") }),
  z.strictObject({
    kind: z.literal("shuffled"),
    seed: z
      .number()
      .int()
      .nonnegative()
      .max(2 ** 32 - 1),
    textPolicy: z.enum(SHUFFLE_TEXT_POLICIES).default("names"),
  }),
  z.strictObject({
    kind: z.literal("mismatch"),
    seed: z
      .number()
      .int()
      .nonnegative()
      .max(2 ** 32 - 1),
  }),
]);
export type Control = z.output<typeof ControlSchema>;
export type ControlInput = z.input<typeof ControlSchema>;
export type ControlKind = Control["kind"];

/** `plain`, `masked:modules`, `shuffled:7`, `mismatch:7`: a control in one token, for labels and tables. */
export function controlLabel(control: Control): string {
  switch (control.kind) {
    case "plain":
      return "plain";
    case "masked":
      return `masked:${control.level}`;
    case "shuffled":
      return control.textPolicy === "layout-only" ? `shuffled:${control.seed}:layout-only` : `shuffled:${control.seed}`;
    case "mismatch":
      return `${control.kind}:${control.seed}`;
  }
}

/** A repair run's arm (`single`, `two-agent`, …): a lowercase word, safe as a folder name. */
export const ArmSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, "a lowercase word (letters, digits, -), e.g. two-agent");

/**
 * One cell of a run: a sampling seed (sent to the server; `null` when none is sent and the
 * server's default sampling applies) crossed with a control, and for a repair run with an arm
 * (how the fixer is set up: one agent, two agents, what is injected). Localization cells have
 * no arm, so their labels and keys are what they were before repair runs existed.
 */
export const RunCellSchema = z.strictObject({
  seed: z
    .number()
    .int()
    .nonnegative()
    .max(2 ** 32 - 1)
    .nullable(),
  control: ControlSchema,
  arm: ArmSchema.optional(),
  /** A repair run's agent framework other than loclab's fixer (`mini-swe-agent`): the cell's fourth part. */
  framework: ArmSchema.optional(),
});
export type RunCell = z.output<typeof RunCellSchema>;

/** `seed-1/masked-modules` (`seed-1/plain/two-agent` with an arm): a cell as a folder name (file-system safe) and a table label. */
export function cellLabel(cell: RunCell): string {
  const label = `seed-${cell.seed ?? "none"}/${controlLabel(cell.control).replaceAll(":", "-")}`;
  const armed = cell.arm === undefined ? label : `${label}/${cell.arm}`;
  return cell.framework === undefined ? armed : `${armed}/${cell.framework}`;
}
