import {
  readLedger,
  readRunManifest,
  type RebuiltCell,
  rebuildCellPredictions,
  runLayout,
  type TornTail,
} from "@loclab/schemas";
import { acquireRunLock } from "./run-lock.js";

/** What `repairRunFolder` did. */
export interface RunFolderRepair {
  /** The ledger's torn last line, set aside. */
  torn?: TornTail;
  /** Cells whose predictions file was rewritten from the ledger. */
  rebuilt: RebuiltCell[];
}

/**
 * Mends a run folder without running anything (`loclab status DIR --repair`): sets aside a
 * torn last ledger line, and rebuilds every cell's predictions file from the ledger, the truth.
 * Takes the folder's lock, so it never races a runner working in it.
 */
export async function repairRunFolder(dir: string): Promise<RunFolderRepair> {
  const manifest = await readRunManifest(dir);
  if (!manifest) throw new Error(`${dir}: no manifest.json: not a run folder`);
  const lock = await acquireRunLock(dir, `loclab status ${dir} --repair`);
  try {
    const ledger = await readLedger(runLayout.ledger(dir), { repair: true });
    const rebuilt = await rebuildCellPredictions(dir, ledger.records, manifest.cells);
    return { ...(ledger.torn ? { torn: ledger.torn } : {}), rebuilt };
  } finally {
    await lock.release();
  }
}
