import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { ZodError } from "zod";
import { ModelAnswerError, type TransportErrorClass } from "./model-errors.js";

export type ClassifiedModelError =
  | { kind: "transport"; errorClass: TransportErrorClass; message: string; retryAfterMs?: number }
  | { kind: "request"; status: number; message: string }
  | { kind: "invalid-answer"; retryable: boolean; message: string }
  | { kind: "unknown" };

/**
 * Sorts an error thrown while calling a model server (or parsing its answer) into the taxonomy
 * of `model-errors.ts`; `unknown` is a bug and is rethrown. `answer` names what a 200 should
 * have held ("chat completion", "completions answer") for the message. The timeout check comes
 * first because the `openai` package's timeout error is a subclass of its connection error.
 */
export function classifyModelError(error: unknown, answer = "chat completion"): ClassifiedModelError {
  // Our own abort (the request timeout or the call's deadline, headers or body): the caller says which.
  const aborted =
    error instanceof APIUserAbortError ||
    (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"));
  if (aborted)
    return { kind: "transport", errorClass: "timeout", message: "no complete answer within the request timeout" };
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: "transport", errorClass: "timeout", message: error.message };
  }
  if (error instanceof APIConnectionError) {
    const causes = causeMessages(error.cause);
    const detail = causes.length > 0 ? ` (${causes.join(": ")})` : "";
    return { kind: "transport", errorClass: "connection", message: `${error.message}${detail}` };
  }
  if (error instanceof APIError && typeof error.status === "number") return classifyStatus(error);
  if (bodyCut(error)) {
    const causes = causeMessages((error as Error).cause);
    const detail = causes.length > 0 ? ` (${causes.join(": ")})` : "";
    return {
      kind: "transport",
      errorClass: "connection",
      message: `the answer was cut off after its headers${detail}`,
    };
  }
  if (error instanceof ModelAnswerError)
    return { kind: "invalid-answer", retryable: error.retryable, message: error.problem };
  if (error instanceof SyntaxError) {
    return { kind: "invalid-answer", retryable: true, message: `response body is not valid JSON: ${error.message}` };
  }
  if (error instanceof ZodError) {
    const problems = error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ");
    return { kind: "invalid-answer", retryable: true, message: `response is not a ${answer}: ${problems}` };
  }
  return { kind: "unknown" };
}

/**
 * 429 and 5xx are the server's state; 408 is too (RFC 9110 §15.5.9: the client may repeat the
 * request); any other status is a refusal of the request itself.
 */
function classifyStatus(error: APIError & { status: number }): ClassifiedModelError {
  const retryAfterMs = retryAfter(error.headers);
  const after = retryAfterMs === undefined ? {} : { retryAfterMs };
  if (error.status === 429) return { kind: "transport", errorClass: "rate-limited", message: error.message, ...after };
  if (error.status === 408) return { kind: "transport", errorClass: "timeout", message: error.message, ...after };
  if (error.status >= 500) return { kind: "transport", errorClass: "http-5xx", message: error.message, ...after };
  return { kind: "request", status: error.status, message: error.message };
}

/**
 * A body cut off after the headers: undici rejects the body read with `TypeError: terminated`
 * (its cause a socket error). The `openai` package reads the body outside its own error
 * wrapping, so this arrives raw.
 */
function bodyCut(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return error.message === "terminated" || (typeof code === "string" && code.startsWith("UND_ERR"));
}

/** fetch reports "fetch failed" and hides the useful part ("other side closed", ECONNREFUSED) in its causes. */
function causeMessages(cause: unknown): string[] {
  const messages: string[] = [];
  for (let current = cause; current instanceof Error && messages.length < 5; current = current.cause) {
    messages.push(current.message);
  }
  return messages;
}

/**
 * The wait a response asks for in `Retry-After` (RFC 9110: delay-seconds or an HTTP date), in
 * milliseconds; undefined when absent or unreadable.
 */
export function retryAfter(headers: unknown, now: number = Date.now()): number | undefined {
  let value: string | null | undefined;
  if (headers && typeof (headers as Headers).get === "function") value = (headers as Headers).get("retry-after");
  else if (headers && typeof headers === "object")
    value = (headers as Record<string, string | undefined>)["retry-after"];
  if (value === null || value === undefined || value.trim() === "") return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
