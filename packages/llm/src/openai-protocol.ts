import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { MAX_TOOLS, type ChatRequest, type ChatResponse, type ToolCall } from "./chat.js";
import { answeringModel, argumentsText, checkedResponse, invalidResponse, parseOrRefuse } from "./protocol-common.js";
import { eventJson, MAX_STREAM_CHARS, readSseEvents } from "./sse.js";

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

// Lenient on what a provider adds (unknown fields are dropped), strict on the fields read.
const Count = z.int().nonnegative().nullish();
const Usage = z.object({ prompt_tokens: Count, completion_tokens: Count }).nullish();
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
    usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
  });
}

const StreamChunk = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        index: z.int().nonnegative().nullish(),
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.int().nonnegative().max(MAX_TOOLS - 1),
                  id: z.string().nullish(),
                  type: z.string().nullish(),
                  function: z.object({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: Usage,
});

interface ToolCallParts {
  id: string | undefined;
  name: string | undefined;
  readonly arguments: string[];
}

/**
 * The answer from a streamed chat completion (`data: {chunk}` events, `data: [DONE]` last), for a
 * server that streams although `stream: false` was asked. Content fragments are joined in order;
 * tool-call fragments by their `index` (the id and name from the first fragment that has them,
 * `arguments` joined); `usage` from the last chunk that has it (a server that sends none: 0, as
 * in {@link parseOpenAiResponse}). Only choice 0 is read. Linear in the text, refused beyond
 * `maxChars`. Events after `[DONE]` are ignored.
 *
 * @throws AppError `LLM_UNAVAILABLE` when the stream carries an error object; `LLM_RESPONSE_INVALID`
 *   when a chunk does not match, or the stream ends with neither a finish reason nor `[DONE]`.
 */
export function parseOpenAiStream(text: string, requestedModel: string, maxChars: number = MAX_STREAM_CHARS): ChatResponse {
  const content: string[] = [];
  const calls = new Map<number, ToolCallParts>();
  let model: string | undefined;
  let finish: string | undefined;
  let usage: z.infer<typeof Usage>;
  let done = false;
  const events = readSseEvents(text, maxChars);
  for (const [position, event] of events.entries()) {
    if (event.data === "[DONE]") {
      done = true;
      break;
    }
    const json = eventJson(event, position);
    if (typeof json === "object" && json !== null && "error" in json) {
      throw new AppError("LLM_UNAVAILABLE", "the model endpoint reported an error in its event stream");
    }
    const chunk = parseOrRefuse(StreamChunk, json, `event ${position} of the stream`);
    model = nonEmpty(chunk.model) ?? model;
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue;
      finish = nonEmpty(choice.finish_reason) ?? finish;
      if (typeof choice.delta?.content === "string") content.push(choice.delta.content);
      for (const fragment of choice.delta?.tool_calls ?? []) {
        let parts = calls.get(fragment.index);
        if (parts === undefined) {
          parts = { id: undefined, name: undefined, arguments: [] };
          calls.set(fragment.index, parts);
        }
        parts.id ??= nonEmpty(fragment.id);
        parts.name ??= nonEmpty(fragment.function?.name);
        const piece = fragment.function?.arguments;
        if (typeof piece === "string") parts.arguments.push(piece);
      }
    }
  }
  if (!done && finish === undefined) throw invalidResponse("the event stream ended before the answer finished");
  const toolCalls: ToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, parts]) => {
      if (parts.name === undefined) throw invalidResponse(`streamed tool call ${index} has no name`);
      return { id: parts.id ?? `call_${index}`, name: parts.name, arguments: parts.arguments.join("") };
    });
  return checkedResponse({
    model: answeringModel(model, requestedModel),
    content: content.join(""),
    toolCalls,
    stop: stopOf(finish, toolCalls.length > 0),
    usage: { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 },
  });
}

function stopOf(reason: string | null | undefined, hasToolCalls: boolean): ChatResponse["stop"] {
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

function nonEmpty(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === "" ? undefined : value;
}
