import type { Provenance } from "@loclab/schemas";

/** What every stage of `loclab reproduce` takes. */
export interface StageOptions {
  /** The results folder (it exists). */
  out: string;
  /** The shared data folder; the default is found as `resolveDataDir` finds it. */
  dataDir?: string;
  /** The provenance of an artifact written now (the CLI gives its own: tool, version, git revision). */
  provenance: (inputs: Record<string, unknown>) => Provenance;
  /** One line of progress (stderr in the CLI). */
  progress?: (message: string) => void;
  /** A problem that does not stop the stage (a patch that does not parse, a trajectory not used). */
  warn?: (message: string) => void;
}

/** What a stage did: the files it wrote and the table it shows (rows ready to print), and a line under it. */
export interface StageResult {
  written: string[];
  rows: object[];
  footer?: string;
}

export const quiet = (): void => undefined;
