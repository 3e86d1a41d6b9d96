/**
 * Docker's multiplexed output without a TTY: frames of an 8-byte header (stream 1 = stdout,
 * 2 = stderr; then 0, 0, 0; the length, big-endian) and the payload. Both streams, in order.
 */
export function demultiplex(buffer: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at + 8 <= buffer.length) {
    const length = buffer.readUInt32BE(at + 4);
    parts.push(buffer.subarray(at + 8, at + 8 + length));
    at += 8 + length;
  }
  return Buffer.concat(parts);
}

/** Docker's multiplexed output split by stream: stdout and stderr apart, each in order. */
export function demultiplexStreams(buffer: Buffer): { stdout: Buffer; stderr: Buffer } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let at = 0;
  while (at + 8 <= buffer.length) {
    const kind = buffer[at];
    const length = buffer.readUInt32BE(at + 4);
    (kind === 2 ? err : out).push(buffer.subarray(at + 8, at + 8 + length));
    at += 8 + length;
  }
  return { stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}
