import type Docker from "dockerode";

/** An image that exists in the engine: its name, content digest (image id) and labels. */
export interface ImageRef {
  name: string;
  id: string;
  labels: Record<string, string>;
  sizeBytes: number;
}

export async function findImage(docker: Docker, name: string): Promise<ImageRef | undefined> {
  try {
    const info = await docker.getImage(name).inspect();
    return { name, id: info.Id, labels: info.Config?.Labels ?? {}, sizeBytes: info.Size };
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}
