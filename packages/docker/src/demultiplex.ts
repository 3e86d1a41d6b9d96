/**
 * The frames of Docker's multiplexed output without a TTY: an 8-byte header (stream 1 = stdout,
 * 2 = stderr; then 0, 0, 0; the length, big-endian) and the payload.
 */
function* frames(buffer: Buffer): Generator<{ stream: number; payload: Buffer }> {
  let at = 0;
  while (at + 8 <= buffer.length) {
    const length = buffer.readUInt32BE(at + 4);
    yield { stream: buffer[at]!, payload: buffer.subarray(at + 8, at + 8 + length) };
    at += 8 + length;
  }
}

/** Docker's multiplexed output as plain bytes: both streams, in order. */
export function demultiplex(buffer: Buffer): Buffer {
  return Buffer.concat([...frames(buffer)].map((frame) => frame.payload));
}

/** Docker's multiplexed output split by stream: stdout and stderr apart, each in order. */
export function demultiplexStreams(buffer: Buffer): { stdout: Buffer; stderr: Buffer } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  for (const { stream, payload } of frames(buffer)) (stream === 2 ? err : out).push(payload);
  return { stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}
