import type { ChatCompletionRequest } from "./chat-completion-request.js";

/** A scripted tool call; `arguments` is a string so that malformed JSON can be scripted. */
export interface ScriptedToolCall {
  name: string;
  arguments: string;
  /** Defaults to `call_<turn>_<position>`. */
  id?: string;
}

/** One scripted model answer. Omitted fields get the defaults a real server would produce. */
export interface ScriptedReply {
  content?: string | null;
  toolCalls?: ScriptedToolCall[];
  /** Defaults to "tool_calls" when there are tool calls, otherwise "stop". */
  finishReason?: "stop" | "tool_calls" | "length";
  /** Defaults to a rough count: characters / 4 of the request messages and of the reply. */
  usage?: { promptTokens: number; completionTokens: number };
}

/**
 * A transport fault, consuming one turn:
 * - `http-500` / `http-503`: an error status with a JSON error body;
 * - `delay`: wait `ms` before answering (with `then`, if given; otherwise the connection is
 *   dropped), so a client timeout shorter than `ms` sees a timeout;
 * - `cut-connection`: destroy the socket without writing a response;
 * - `invalid-json`: status 200, `content-type: application/json`, a body that does not parse;
 * - `http-429`: rate limited, with `Retry-After: <retryAfter>` seconds when given (also on `http-503`);
 * - `http-400`: the request is refused (a client error: not retried), with `message` if given
 *   (e.g. vLLM's words for a prompt longer than the window);
 * - `trickle`: status 200 and one byte of a never-ending JSON body every `everyMs`, so only a
 *   timeout that covers the body (not just the headers) ends the wait.
 */
export type ScriptedFault =
  | { fault: "http-500" }
  | { fault: "http-503"; retryAfter?: number }
  | { fault: "http-429"; retryAfter?: number }
  | { fault: "http-400"; message?: string }
  | { fault: "trickle"; everyMs: number }
  | { fault: "delay"; ms: number; then?: ScriptedReply }
  | { fault: "cut-connection" }
  | { fault: "invalid-json" };

export type ScriptTurn = ScriptedReply | ScriptedFault;

/**
 * The script: a fixed list of turns, answered in order, or a function of the (validated)
 * request and its 0-based turn index; returning `undefined` means the script is exhausted.
 */
export type ModelScript =
  | readonly ScriptTurn[]
  | ((request: ChatCompletionRequest, index: number) => ScriptTurn | undefined);

export function isScriptedFault(turn: ScriptTurn): turn is ScriptedFault {
  return "fault" in turn;
}
