export {
  connectDocker,
  dockerSocketPath,
  DockerUnavailableError,
  type DockerEngine,
  type DockerEngineOptions,
} from "./engine.js";
export { demultiplex, demultiplexStreams } from "./demultiplex.js";
export { execInContainer, execSplit, type ExecOptions, type ExecResult, type SplitExecResult } from "./exec.js";
export { tarArchive, type ArchiveEntry } from "./tar-archive.js";
export { removeLabelledContainers } from "./labelled-containers.js";
