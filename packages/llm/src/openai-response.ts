import { z } from "zod";
import { MAX_TOOLS, type ChatResponse, type ToolCall } from "@reviewbot/contracts/chat";
import { answeringModel, argumentsText, checkedResponse, invalidResponse, nonEmpty, parseOrRefuse } from "./protocol-common.js";

// Lenient on what a provider adds (unknown fields are dropped), strict on the fields read.
const Count = z.int().nonnegative().nullish();
/** A completion's `usage` (a streamed chunk's too). */
export const Usage = z.object({ prompt_tokens: Count, completion_tokens: Count }).nullish();
const TextParts = z.array(z.object({ type: z.string(), text: z.string().nullish() }));
const Content = z.union([z.string(), TextParts]).nullish();
const CompletionToolCall = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({ name: z.string().min(1), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() }),
});
const Completion = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: Content, tool_calls: z.array(CompletionToolCall).max(MAX_TOOLS).nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: Usage,
});

/**
 * The chat contract's answer from a chat-completions body (the first choice).
 *
 * - `finish_reason`: `stop` → `end`, `tool_calls` (or the older `function_call`) → `tool_calls`,
 *   `length` → `length`, anything else → `other`. An answer that carries tool calls is
 *   `tool_calls` even when the server said `stop` or nothing (vLLM does for `tool_choice:
 *   required`, some Ollama versions always do): the loop must run them either way.
 * - A tool call without an `id` (some local servers) gets `call_<n>`; `arguments` sent as an object
 *   is serialised; calls of a type other than `function` are dropped.
 * - `usage`: `prompt_tokens` / `completion_tokens`; a server that reports no usage (some local
 *   servers, a proxy that drops it) is counted as 0 tokens, so token budgets cannot see its calls:
 *   spend caps and token caps are only as good as the endpoint's own accounting.
 *
 * @throws AppError `LLM_RESPONSE_INVALID` when the body is not a chat completion, or its answer
 *   does not fit the chat contract.
 */
export function parseOpenAiResponse(json: unknown, requestedModel: string): ChatResponse {
  if (typeof json === "object" && json !== null && "error" in json && !("choices" in json)) {
    throw invalidResponse("the 2xx body carries an error object instead of choices");
  }
  const completion = parseOrRefuse(Completion, json, "the chat completion");
  const [choice] = completion.choices;
  if (choice === undefined) throw invalidResponse("the chat completion has no choice");
  const toolCalls: ToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type !== undefined && call.type !== null && call.type !== "function") continue;
    toolCalls.push({ id: nonEmpty(call.id) ?? `call_${toolCalls.length}`, name: call.function.name, arguments: argumentsText(call.function.arguments ?? "") });
  }
  return checkedResponse({
    model: answeringModel(completion.model, requestedModel),
    content: contentText(choice.message.content),
    toolCalls,
    stop: stopOf(choice.finish_reason, toolCalls.length > 0),
    usage: usageOf(completion.usage),
  });
}

/** The chat contract's stop for a `finish_reason` (see {@link parseOpenAiResponse}). */
export function stopOf(reason: string | null | undefined, hasToolCalls: boolean): ChatResponse["stop"] {
  if (hasToolCalls && (reason === "stop" || reason === undefined || reason === null || reason === "")) return "tool_calls";
  switch (reason) {
    case "stop":
      return "end";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "length":
      return "length";
    default:
      return "other";
  }
}

function contentText(content: z.infer<typeof Content>): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("");
}

/** The chat contract's usage: `prompt_tokens` / `completion_tokens`, 0 when not reported (see {@link parseOpenAiResponse}). */
export function usageOf(usage: z.infer<typeof Usage>): ChatResponse["usage"] {
  return { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
}
