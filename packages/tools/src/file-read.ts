/**
 * What reading a file gave:
 * - `text`: the whole file, at most `maxFileBytes`, without a NUL byte;
 * - `binary`: a NUL byte somewhere in the file (the bytes are not kept);
 * - `large`: more than `maxFileBytes`; never read whole (tools stream it);
 * - `missing`: listed but gone or unreadable (a file deleted from a working tree).
 */
export type FileRead =
  | { kind: "text"; path: string; bytes: Buffer; size: number }
  | { kind: "binary"; path: string; size: number }
  | { kind: "large"; path: string; size: number; absolutePath: string }
  | { kind: "missing"; path: string; reason: string };
