import type { ChatRequest } from "@reviewbot/contracts/chat";
import { argumentsObject } from "./protocol-common.js";

/** The Anthropic messages protocol (`POST {base}/v1/messages`). */
export const ANTHROPIC_MESSAGES_PATH = "/v1/messages";
/** The `anthropic-version` header the body below is written for. */
export const ANTHROPIC_VERSION = "2023-06-01";

type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content?: string };

interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicMessagesBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  tools?: { name: string; description: string; input_schema: Record<string, unknown> }[];
  tool_choice?: { type: "auto" | "any" | "none" };
  stream: false;
}

const TOOL_CHOICE = { auto: "auto", required: "any", none: "none" } as const;

/**
 * The request body for a chat request: `system` top-level (left out when empty); an assistant
 * message as its text block then one `tool_use` block per call (`arguments` parsed to the `input`
 * object); tool results as `tool_result` blocks of a user message. Messages of the same role in a
 * row become one message (consecutive tool results, and a user message after them, share one
 * user turn, results first, as the API asks). Empty text blocks are left out (the API refuses
 * them), and so is a message left with no block. `tools`/`tool_choice` (`required` → `any`) only
 * when a tool is offered.
 */
export function toAnthropicBody(request: ChatRequest): AnthropicMessagesBody {
  const messages: AnthropicMessage[] = [];
  const add = (role: AnthropicMessage["role"], blocks: AnthropicBlock[]): void => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  const textBlocks = (text: string): AnthropicBlock[] => (text === "" ? [] : [{ type: "text", text }]);
  for (const message of request.messages) {
    if (message.role === "user") {
      add("user", textBlocks(message.content));
    } else if (message.role === "tool") {
      add("user", [{ type: "tool_result", tool_use_id: message.toolCallId, ...(message.content === "" ? {} : { content: message.content }) }]);
    } else {
      add("assistant", [
        ...textBlocks(message.content),
        ...message.toolCalls.map((call): AnthropicBlock => ({ type: "tool_use", id: call.id, name: call.name, input: argumentsObject(call.arguments) })),
      ]);
    }
  }
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system === "" ? {} : { system: request.system }),
    messages,
    ...(request.tools.length === 0
      ? {}
      : {
          tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })),
          tool_choice: { type: TOOL_CHOICE[request.toolChoice] },
        }),
    stream: false,
  };
}
