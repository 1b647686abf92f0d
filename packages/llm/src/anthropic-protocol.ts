import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { MAX_TOOLS, type ChatRequest, type ChatResponse, type ToolCall } from "./chat.js";
import { answeringModel, argumentsObject, argumentsText, checkedResponse, invalidResponse, parseOrRefuse } from "./protocol-common.js";
import { eventJson, MAX_STREAM_CHARS, readSseEvents } from "./sse.js";

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

// Lenient on what a provider adds (unknown fields and block types are dropped), strict on the fields read.
const Count = z.int().nonnegative().nullish();
const Usage = z.object({
  input_tokens: Count,
  output_tokens: Count,
  cache_read_input_tokens: Count,
  cache_creation_input_tokens: Count,
});
type Usage = z.infer<typeof Usage>;
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

/** The most content blocks one streamed message may open: far more than any answer has. */
const MAX_STREAM_BLOCKS = 4 * MAX_TOOLS;

const StreamEvent = z.looseObject({ type: z.string() });
const MessageStart = z.object({ message: z.object({ model: z.string().nullish(), usage: Usage.nullish() }) });
const BlockIndex = z.int().nonnegative().max(MAX_STREAM_BLOCKS - 1);
const BlockStart = z.object({
  index: BlockIndex,
  content_block: z.looseObject({ type: z.string(), text: z.string().nullish(), id: z.string().nullish(), name: z.string().nullish(), input: z.unknown().optional() }),
});
const BlockDelta = z.object({
  index: BlockIndex,
  delta: z.looseObject({ type: z.string(), text: z.string().nullish(), partial_json: z.string().nullish() }),
});
const MessageDelta = z.object({ delta: z.object({ stop_reason: z.string().nullish() }).nullish(), usage: Usage.nullish() });
const StreamError = z.object({ error: z.object({ type: z.string().regex(/^[a-z_]{1,64}$/) }).nullish() });

interface StreamBlock {
  readonly type: string;
  readonly id: string | undefined;
  readonly name: string | undefined;
  readonly input: unknown;
  readonly parts: string[];
}

/**
 * The answer from a streamed message (`message_start`, `content_block_start` / `_delta` with
 * `text_delta` and `input_json_delta`, `message_delta` with `stop_reason` and usage,
 * `message_stop`; `ping` and unknown events ignored), for a server that streams although
 * `stream: false` was asked. A tool_use block's `arguments` are its `partial_json` fragments
 * joined (its start `input` serialised when none came). Usage starts from `message_start` and each
 * count a `message_delta` carries replaces it (Anthropic sends cumulative counts). Linear in the
 * text, refused beyond `maxChars`.
 *
 * @throws AppError `LLM_UNAVAILABLE` on an `error` event (naming its type, e.g. `overloaded_error`);
 *   `LLM_RESPONSE_INVALID` when an event does not match, a delta names a block never started, or
 *   the stream ends before a stop reason or `message_stop`.
 */
export function parseAnthropicStream(text: string, requestedModel: string, maxChars: number = MAX_STREAM_CHARS): ChatResponse {
  const blocks = new Map<number, StreamBlock>();
  let model: string | undefined;
  let usage: Usage = {};
  let stopReason: string | undefined;
  let stopped = false;
  for (const [position, event] of readSseEvents(text, maxChars).entries()) {
    const json = eventJson(event, position);
    const what = `event ${position} of the stream`;
    const { type } = parseOrRefuse(StreamEvent, json, what);
    if (type === "message_start") {
      const start = parseOrRefuse(MessageStart, json, what).message;
      model = start.model ?? model;
      usage = { ...usage, ...present(start.usage) };
    } else if (type === "content_block_start") {
      const { index, content_block: block } = parseOrRefuse(BlockStart, json, what);
      if (blocks.has(index)) throw invalidResponse(`${what} starts block ${index} twice`);
      blocks.set(index, { type: block.type, id: block.id ?? undefined, name: block.name ?? undefined, input: block.input, parts: block.type === "text" && typeof block.text === "string" ? [block.text] : [] });
    } else if (type === "content_block_delta") {
      const { index, delta } = parseOrRefuse(BlockDelta, json, what);
      const block = blocks.get(index);
      if (block === undefined) throw invalidResponse(`${what} continues block ${index}, which was never started`);
      if (delta.type === "text_delta" && typeof delta.text === "string") block.parts.push(delta.text);
      else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") block.parts.push(delta.partial_json);
    } else if (type === "message_delta") {
      const change = parseOrRefuse(MessageDelta, json, what);
      stopReason = change.delta?.stop_reason ?? stopReason;
      usage = { ...usage, ...present(change.usage) };
    } else if (type === "message_stop") {
      stopped = true;
      break;
    } else if (type === "error") {
      const kind = parseOrRefuse(StreamError, json, what).error?.type ?? "error";
      throw new AppError("LLM_UNAVAILABLE", `the model endpoint reported ${kind} in its event stream`);
    }
  }
  if (!stopped && stopReason === undefined) throw invalidResponse("the event stream ended before the message stopped");
  const content: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const [index, block] of [...blocks.entries()].sort(([a], [b]) => a - b)) {
    if (block.type === "text") {
      content.push(block.parts.join(""));
    } else if (block.type === "tool_use") {
      if (block.id === undefined || block.id === "" || block.name === undefined || block.name === "") throw invalidResponse(`streamed tool_use block ${index} has no id or name`);
      const joined = block.parts.join("");
      toolCalls.push({ id: block.id, name: block.name, arguments: joined === "" ? argumentsText(block.input) : joined });
    }
  }
  return checkedResponse({
    model: answeringModel(model, requestedModel),
    content: content.join(""),
    toolCalls,
    stop: stopOf(stopReason),
    usage: usageOf(usage),
  });
}

function stopOf(reason: string | null | undefined): ChatResponse["stop"] {
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

function usageOf(usage: Usage | null | undefined): ChatResponse["usage"] {
  return {
    inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0),
    outputTokens: usage?.output_tokens ?? 0,
  };
}

/** The counts a usage object carries (null and absent ones left out, so they do not replace earlier counts). */
function present(usage: Usage | null | undefined): Usage {
  if (usage === undefined || usage === null) return {};
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => typeof value === "number"));
}
