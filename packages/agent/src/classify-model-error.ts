import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { ZodError } from "zod";
import type { TransportErrorClass } from "./model-errors.js";

export type ClassifiedModelError =
  | { kind: "transport"; errorClass: TransportErrorClass; message: string; retryAfterMs?: number }
  | { kind: "request"; status: number; message: string }
  | { kind: "unknown" };

/**
 * Sorts an error thrown while calling the model into a transport fault (retry), a rejected
 * request (do not retry) or something else (a bug: rethrow). The timeout check comes first
 * because the `openai` package's timeout error is a subclass of its connection error.
 */
export function classifyModelError(error: unknown): ClassifiedModelError {
  // Our own abort (the request timeout or the call's deadline): the caller says which.
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
  if (error instanceof APIError && typeof error.status === "number") {
    const retryAfterMs = retryAfter(error.headers);
    const after = retryAfterMs === undefined ? {} : { retryAfterMs };
    if (error.status === 429)
      return { kind: "transport", errorClass: "rate-limited", message: error.message, ...after };
    if (error.status >= 500) return { kind: "transport", errorClass: "http-5xx", message: error.message, ...after };
    return { kind: "request", status: error.status, message: error.message };
  }
  if (error instanceof SyntaxError) {
    return {
      kind: "transport",
      errorClass: "invalid-json",
      message: `response body is not valid JSON: ${error.message}`,
    };
  }
  if (error instanceof ZodError) {
    const problems = error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ");
    return { kind: "transport", errorClass: "invalid-json", message: `response is not a chat completion: ${problems}` };
  }
  return { kind: "unknown" };
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
