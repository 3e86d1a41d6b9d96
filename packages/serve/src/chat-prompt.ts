import { Template } from "@huggingface/jinja";
import { ApiError } from "./api-errors.js";
import { toolInstructions, type FunctionTool, type ToolChoice } from "./tool-grammar.js";

/** A chat message as a request carries it (OpenAI's shapes, the parts loclab sends). */
export interface RequestMessage {
  role: string;
  content?: string | null | Array<{ type: string; text?: string }>;
  name?: string;
  tool_calls?: Array<{ id?: string; type?: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** ChatML, for a model file that carries no template. */
const CHATML =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export interface ChatPromptOptions {
  template: string | undefined;
  bosToken: string | null;
  eosToken: string | null;
  messages: readonly RequestMessage[];
  tools?: readonly FunctionTool[];
  toolChoice?: ToolChoice;
  addGenerationPrompt?: boolean;
}

const compiled = new Map<string, Template>();

/**
 * The prompt text of a chat request, rendered with the model's own chat template (Jinja, as
 * vLLM renders it). A template that knows `tools` gets them; otherwise the tool list and the
 * answer format go at the end of the system message (one is added if there is none). Earlier
 * tool calls are shown in the same JSON form the model is asked to answer in, so it sees its
 * own calls consistently; tool results keep the role `tool`.
 */
export function renderChatPrompt(options: ChatPromptOptions): string {
  const source = options.template ?? CHATML;
  let template = compiled.get(source);
  if (!template) {
    template = new Template(source);
    compiled.set(source, template);
  }
  const tools = options.tools ?? [];
  const useTools = tools.length > 0 && options.toolChoice !== "none";
  const templateKnowsTools = /\btools\b/.test(source);
  const messages = options.messages.map((message, index) => normalise(message, index));
  if (useTools && !templateKnowsTools) {
    const instructions = toolInstructions(tools, options.toolChoice ?? "auto");
    const first = messages[0];
    if (first?.role === "system") first.content = `${first.content}\n\n${instructions}`;
    else messages.unshift({ role: "system", content: instructions });
  }
  try {
    return template.render({
      messages,
      add_generation_prompt: options.addGenerationPrompt ?? true,
      bos_token: options.bosToken ?? "",
      eos_token: options.eosToken ?? "",
      ...(useTools && templateKnowsTools ? { tools } : {}),
    });
  } catch (error) {
    throw new ApiError(400, `the model's chat template could not render these messages: ${(error as Error).message}`);
  }
}

function normalise(message: RequestMessage, index: number): { role: string; content: string } {
  if (typeof message.role !== "string")
    throw new ApiError(400, `messages[${index}].role: expected a string`, "BadRequestError", `messages[${index}].role`);
  let content = "";
  if (typeof message.content === "string") content = message.content;
  else if (Array.isArray(message.content)) {
    content = message.content
      .map((part, partIndex) => {
        if (part.type !== "text" || typeof part.text !== "string")
          throw new ApiError(
            400,
            `messages[${index}].content[${partIndex}]: only text parts are supported`,
            "BadRequestError",
            `messages[${index}].content`,
          );
        return part.text;
      })
      .join("");
  }
  if (message.role === "assistant" && message.tool_calls && message.tool_calls.length > 0) {
    const calls = message.tool_calls.map(
      (call) => `{"name": ${JSON.stringify(call.function.name)}, "arguments": ${call.function.arguments || "{}"}}`,
    );
    content = [content, ...calls].filter((part) => part.length > 0).join("\n");
  }
  return { role: message.role, content };
}
