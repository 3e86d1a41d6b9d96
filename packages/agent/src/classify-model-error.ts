import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { ZodError } from "zod";
import type { TransportErrorClass } from "./model-errors.js";

export type ClassifiedModelError =
  | { kind: "transport"; errorClass: TransportErrorClass; message: string }
  | { kind: "request"; status: number; message: string }
  | { kind: "unknown" };

/**
 * Sorts an error thrown while calling the model into a transport fault (retry), a rejected
 * request (do not retry) or something else (a bug: rethrow). The timeout check comes first
 * because the `openai` package's timeout error is a subclass of its connection error.
 */
export function classifyModelError(error: unknown): ClassifiedModelError {
  if (error instanceof APIConnectionTimeoutError) {
    return { kind: "transport", errorClass: "timeout", message: error.message };
  }
  if (error instanceof APIConnectionError) {
    const causes = causeMessages(error.cause);
    const detail = causes.length > 0 ? ` (${causes.join(": ")})` : "";
    return { kind: "transport", errorClass: "connection", message: `${error.message}${detail}` };
  }
  if (error instanceof APIError && typeof error.status === "number") {
    if (error.status >= 500) return { kind: "transport", errorClass: "http-5xx", message: error.message };
    return { kind: "request", status: error.status, message: error.message };
  }
  if (error instanceof SyntaxError) {
    return { kind: "transport", errorClass: "invalid-json", message: `response body is not valid JSON: ${error.message}` };
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
