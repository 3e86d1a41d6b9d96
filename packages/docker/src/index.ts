export {
  connectDocker,
  dockerSocketPath,
  DockerUnavailableError,
  type DockerEngine,
  type DockerEngineOptions,
} from "./engine.js";
export { demultiplex, demultiplexStreams } from "./demultiplex.js";
export {
  DEFAULT_KEEP_BYTES,
  execInContainer,
  execSplit,
  type ExecOptions,
  type ExecResult,
  type SplitExecResult,
} from "./exec.js";
export { droppedBytes, FrameReader, HeadKeeper, type KeptBytes } from "./bounded-output.js";
export { tarArchive, type ArchiveEntry } from "./tar-archive.js";
export { removeLabelledContainers } from "./labelled-containers.js";
export { type LayerWatch, type LayerWatchOptions, watchWritableLayer, writableLayerBytes } from "./writable-layer.js";
export { type BuildEvent, type BuildStreamResult, readBuildStream } from "./build-events.js";
