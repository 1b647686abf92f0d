import type { ChatRequest } from "@reviewbot/contracts/chat";

/**
 * The OpenAI chat-completions protocol (`POST {base}/chat/completions`), as OpenAI, vLLM, Ollama
 * (`/v1`), the llama.cpp server, LM Studio and LiteLLM speak it.
 */
export const OPENAI_CHAT_PATH = "/chat/completions";

type OpenAiMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface OpenAiChatBody {
  model: string;
  messages: OpenAiMessage[];
  tools?: { type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  tool_choice?: "auto" | "required" | "none";
  max_tokens: number;
  stream: false;
}

/**
 * The request body for a chat request: the system prompt as a leading system message (left out
 * when empty), assistant tool calls as `tool_calls` (content `null` when the model wrote none, the
 * field left out when it made none: some servers refuse an empty list), tool results as `tool`
 * messages with `tool_call_id`. `tools` and `tool_choice` are left out when no tool is offered.
 * `max_tokens`, not `max_completion_tokens`: every server named above takes it.
 */
export function toOpenAiBody(request: ChatRequest): OpenAiChatBody {
  const messages: OpenAiMessage[] = request.system === "" ? [] : [{ role: "system", content: request.system }];
  for (const message of request.messages) {
    if (message.role === "user") {
      messages.push({ role: "user", content: message.content });
    } else if (message.role === "tool") {
      messages.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
    } else if (message.toolCalls.length === 0) {
      messages.push({ role: "assistant", content: message.content });
    } else {
      messages.push({
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })),
      });
    }
  }
  if (request.tools.length === 0) return { model: request.model, messages, max_tokens: request.maxTokens, stream: false };
  return {
    model: request.model,
    messages,
    tools: request.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
    tool_choice: request.toolChoice,
    max_tokens: request.maxTokens,
    stream: false,
  };
}
