export { REPAIR_RUN_LABEL, repairRunTag } from "./run-tag.js";
export { patchFiles } from "./patch-files.js";
export { attemptFiles, type RepairSession, runRepairAttempt } from "./repair-attempt.js";
export { oracleHandOff } from "./attempt-hand-offs.js";
export {
  type LeftoverContainers,
  removeLeftovers,
  type RepairRunKindOptions,
  repairRunKind,
} from "./repair-kind.js";
export { resumeRepairRun, startRepairRun } from "./start-repair-run.js";
export {
  OVER_LIMIT_STATUSES,
  type OpenKey,
  type RepairBreakdown,
  type RepairBreakdownOptions,
  repairBreakdown,
} from "./repair-breakdown.js";
export { type LeftOutKey, type RepairExport, repairExport, repairPredictions } from "./export-predictions.js";
export { cellScores, type RepairCellScore, type RepairReport, writeRepairReport } from "./repair-report.js";
export { type HandOffDecision, decideHandOff } from "./hand-off-decision.js";
export { JudgeRole, judgementDigest } from "./judge-role.js";
export {
  LocalizerStage,
  readStageResult,
  StageInfraError,
  type StageResult,
  StageResultSchema,
} from "./localizer-stage.js";
export {
  type TransferArms,
  type TransferObservations,
  type TransferReport,
  transferObservations,
  transferReport,
  type WrittenTransferReport,
  writeTransferReport,
} from "./transfer-report.js";
export {
  ensureMiniSweAgent,
  installedMiniSweAgent,
  miniSweAgentPython,
  miniSweAgentVenv,
} from "./mini-swe-agent/setup.js";
export {
  MINI_DRIVER,
  type MiniSweAgentJob,
  type MiniSweAgentResult,
  miniExit,
  runMiniSweAgent,
} from "./mini-swe-agent/run-mini.js";
export { editsFiles, type MiniTotals, miniTotals } from "./mini-swe-agent/mini-totals.js";
export { fixWithMiniSweAgent } from "./mini-swe-agent/fix-with-mini.js";
