import { readBuildStream } from "@loclab/docker";
import type Docker from "dockerode";
import { ImageBuildError } from "./image-build-error.js";
import { findImage, type ImageRef } from "./image-ref.js";

export interface BuildImageInput {
  name: string;
  /** A folder holding the Dockerfile and everything it copies. */
  context: string;
  /** The context's top-level entries to send (folders are sent whole). */
  entries: string[];
  labels: Record<string, string>;
  onProgress?: (line: string) => void;
}

/**
 * `docker build` through dockerode with no network (`--network none`: everything the build
 * installs is in the context), intermediate containers removed even on failure. A failing step
 * is an `ImageBuildError` with the build's last lines. The build's output is read as a stream
 * (`readBuildStream`): only its last lines are held, however much a step prints.
 */
export async function buildImage(docker: Docker, input: BuildImageInput): Promise<ImageRef> {
  const stream = (await docker.buildImage({ context: input.context, src: input.entries }, {
    t: input.name,
    labels: JSON.stringify(input.labels),
    networkmode: "none",
    rm: true,
    forcerm: true,
  } as never)) as unknown as NodeJS.ReadableStream;
  // Read as it comes, the last 30 lines kept: a step that prints without end costs the runner nothing.
  const read = await readBuildStream(stream, {
    onEvent: (event) => {
      const line = event.stream?.trimEnd();
      if (line?.startsWith("Step ")) input.onProgress?.(`  ${line}`);
    },
  }).catch((error: Error) => {
    throw new ImageBuildError(input.name, `the build stream failed: ${error.message}`);
  });
  if (read.error) throw new ImageBuildError(input.name, `${read.error}\n${read.tail.join("")}`.trimEnd());
  const built = await findImage(docker, input.name);
  if (!built) throw new ImageBuildError(input.name, "the build finished but the image is not there");
  return built;
}
