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
 * is an `ImageBuildError` with the build's last lines.
 */
export async function buildImage(docker: Docker, input: BuildImageInput): Promise<ImageRef> {
  const stream = (await docker.buildImage({ context: input.context, src: input.entries }, {
    t: input.name,
    labels: JSON.stringify(input.labels),
    networkmode: "none",
    rm: true,
    forcerm: true,
  } as never)) as unknown as NodeJS.ReadableStream;
  const tail: string[] = [];
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: { error?: string; errorDetail?: { message?: string } }[]) => {
        const failed = error?.message ?? events.find((event) => event.error)?.error;
        if (failed) reject(new ImageBuildError(input.name, `${failed}\n${tail.join("")}`.trimEnd()));
        else resolve();
      },
      (event: { stream?: string }) => {
        if (!event.stream) return;
        tail.push(event.stream);
        if (tail.length > 30) tail.shift();
        const line = event.stream.trimEnd();
        if (line.startsWith("Step ")) input.onProgress?.(`  ${line}`);
      },
    );
  });
  const built = await findImage(docker, input.name);
  if (!built) throw new ImageBuildError(input.name, "the build finished but the image is not there");
  return built;
}
