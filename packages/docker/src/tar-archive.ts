import { pack } from "tar-stream";

export interface ArchiveEntry {
  name: string;
  content: string | Buffer;
  mode?: number;
}

/** A tar archive in memory (for `putArchive`: a patch, a script). */
export async function tarArchive(entries: readonly ArchiveEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    archive.on("data", (chunk: unknown) => {
      chunks.push(chunk as Buffer);
    });
    archive.on("end", () => resolve(Buffer.concat(chunks)));
    archive.on("error", reject);
  });
  for (const entry of entries)
    archive.entry(
      { name: entry.name, mode: entry.mode ?? 0o644 },
      typeof entry.content === "string" ? Buffer.from(entry.content) : entry.content,
    );
  archive.finalize();
  return done;
}
