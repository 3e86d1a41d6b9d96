/**
 * What an exec kept of a stream: its first bytes, up to a cap, and how many it wrote in all.
 * The rest was counted and dropped as it came, so that the runner's memory never depends on
 * what a command prints (a model's `yes | head -c 1500000000` is 1.5 GB of output).
 */
export interface KeptBytes {
  /** The stream's first `min(totalBytes, cap)` bytes. */
  bytes: Buffer;
  /** Every byte the stream carried, kept or not. */
  totalBytes: number;
}

/** Bytes not kept of a stream: `totalBytes - bytes.length`. */
export function droppedBytes(kept: KeptBytes): number {
  return kept.totalBytes - kept.bytes.length;
}

/** Keeps the head of a byte stream up to `cap` bytes and counts the rest. */
export class HeadKeeper {
  private readonly parts: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(readonly cap: number) {
    if (!Number.isInteger(cap) || cap < 0) throw new RangeError(`a byte cap must be a whole number ≥ 0, not ${cap}`);
  }

  write(bytes: Buffer): void {
    this.total += bytes.length;
    const room = this.cap - this.kept;
    if (room <= 0 || bytes.length === 0) return;
    // A copy: a slice would keep the socket's whole chunk alive.
    const part = Buffer.from(bytes.subarray(0, Math.min(room, bytes.length)));
    this.parts.push(part);
    this.kept += part.length;
  }

  result(): KeptBytes {
    return { bytes: Buffer.concat(this.parts, this.kept), totalBytes: this.total };
  }
}

/**
 * Docker's multiplexed exec stream (no TTY), read as it comes: an 8-byte header (stream 1 =
 * stdout, 2 = stderr; then three zero bytes and the payload's length, big-endian) before each
 * payload. Frames may be split anywhere across chunks; each payload piece goes to `onPayload` as
 * soon as it arrives, so nothing is held but a partial header.
 */
export class FrameReader {
  private header = Buffer.alloc(0);
  private remaining = 0;
  private stream = 1;

  constructor(private readonly onPayload: (stream: 1 | 2, bytes: Buffer) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining > 0) {
        const take = Math.min(this.remaining, chunk.length - at);
        this.onPayload(this.stream === 2 ? 2 : 1, chunk.subarray(at, at + take));
        this.remaining -= take;
        at += take;
        continue;
      }
      const need = 8 - this.header.length;
      const piece = chunk.subarray(at, at + need);
      this.header = this.header.length === 0 ? Buffer.from(piece) : Buffer.concat([this.header, piece]);
      at += piece.length;
      if (this.header.length === 8) {
        this.stream = this.header[0]!;
        this.remaining = this.header.readUInt32BE(4);
        this.header = Buffer.alloc(0);
      }
    }
  }
}
