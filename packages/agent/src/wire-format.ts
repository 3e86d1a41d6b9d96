import type { ChatCompletionRequest, WireMessage } from "./chat-completion-request.js";
import type { ChatCompletionResponse } from "./chat-completion-response.js";
import type { AssistantMessage, ChatMessage, FinishReason, TokenUsage, ToolDefinition } from "./chat-message.js";

/** Typed messages → the OpenAI wire shape. */
export function toWireMessages(messages: readonly ChatMessage[]): WireMessage[] {
  return messages.map((message): WireMessage => {
    switch (message.role) {
      case "system":
      case "user":
        return { role: message.role, content: message.content };
      case "assistant":
        return {
          role: "assistant",
          content: message.content,
          ...(message.toolCalls && message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: "function" as const,
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        };
      case "tool":
        return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    }
  });
}

export function toWireTools(tools: readonly ToolDefinition[]): NonNullable<ChatCompletionRequest["tools"]> {
  return tools.map((tool) => ({
    type: "function" as const,
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
    },
  }));
}

export interface ParsedCompletion {
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: TokenUsage | undefined;
}

/** The first choice of a validated response, in the agent's terms. */
export function fromWireCompletion(response: ChatCompletionResponse): ParsedCompletion {
  // The schema requires at least one choice.
  const choice = response.choices[0]!;
  return {
    message: {
      content: choice.message.content ?? null,
      toolCalls: (choice.message.tool_calls ?? []).map((call) => ({
        id: call.id,
        name: call.function.name,
        arguments: call.function.arguments,
      })),
    },
    finishReason: choice.finish_reason ?? "stop",
    usage:
      response.usage == null
        ? undefined
        : {
            promptTokens: response.usage.prompt_tokens,
            completionTokens: response.usage.completion_tokens,
            totalTokens: response.usage.total_tokens,
          },
  };
}
