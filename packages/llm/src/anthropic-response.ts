import { z } from "zod";
import type { ChatResponse, ToolCall } from "@reviewbot/contracts/chat";
import { answeringModel, argumentsText, checkedResponse, invalidResponse, parseOrRefuse } from "./protocol-common.js";

// Lenient on what a provider adds (unknown fields and block types are dropped), strict on the fields read.
const Count = z.int().nonnegative().nullish();
/** A messages body's `usage` (the stream's events carry the same object). */
export const Usage = z.object({
  input_tokens: Count,
  output_tokens: Count,
  cache_read_input_tokens: Count,
  cache_creation_input_tokens: Count,
});
export type Usage = z.infer<typeof Usage>;
const Block = z.looseObject({ type: z.string() });
const TextBlock = z.object({ type: z.literal("text"), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string().min(1), input: z.unknown() });
const Message = z.object({
  model: z.string().nullish(),
  content: z.array(Block),
  stop_reason: z.string().nullish(),
  usage: Usage.nullish(),
});

/**
 * The chat contract's answer from a messages body: text blocks joined, `tool_use` blocks as tool
 * calls (`input` serialised as the JSON `arguments`), other block types (thinking) dropped.
 * `stop_reason`: `end_turn`/`stop_sequence` → `end`, `tool_use` → `tool_calls`, `max_tokens` →
 * `length`, anything else (`refusal`, `pause_turn`) → `other`. Input tokens count
 * `input_tokens` plus the cache reads and writes (all of them are prompt the call paid for); a
 * body without `usage` counts 0 (budgets cannot see such a call).
 *
 * @throws AppError `LLM_RESPONSE_INVALID` when the body is not a message, or its answer does not
 *   fit the chat contract.
 */
export function parseAnthropicResponse(json: unknown, requestedModel: string): ChatResponse {
  if (typeof json === "object" && json !== null && "type" in json && json.type === "error") {
    throw invalidResponse("the 2xx body is an error object, not a message");
  }
  const message = parseOrRefuse(Message, json, "the message");
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [index, block] of message.content.entries()) {
    if (block.type === "text") {
      text.push(parseOrRefuse(TextBlock, block, `content block ${index}`).text);
    } else if (block.type === "tool_use") {
      const call = parseOrRefuse(ToolUseBlock, block, `content block ${index}`);
      toolCalls.push({ id: call.id, name: call.name, arguments: argumentsText(call.input) });
    }
  }
  return checkedResponse({
    model: answeringModel(message.model, requestedModel),
    content: text.join(""),
    toolCalls,
    stop: stopOf(message.stop_reason),
    usage: usageOf(message.usage),
  });
}

/** The chat contract's stop for a `stop_reason` (see {@link parseAnthropicResponse}). */
export function stopOf(reason: string | null | undefined): ChatResponse["stop"] {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "end";
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
      return "length";
    default:
      return "other";
  }
}

/** The chat contract's usage: input tokens with the cache reads and writes (see {@link parseAnthropicResponse}). */
export function usageOf(usage: Usage | null | undefined): ChatResponse["usage"] {
  return {
    inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0),
    outputTokens: usage?.output_tokens ?? 0,
  };
}
