export {
  connectDocker,
  dockerSocketPath,
  DockerUnavailableError,
  type DockerEngine,
  type DockerEngineOptions,
} from "./engine.js";
export { demultiplex, demultiplexStreams } from "./demultiplex.js";
export { execInContainer, type ExecOptions, type ExecResult } from "./exec.js";
export { tarArchive, type ArchiveEntry } from "./tar-archive.js";
