import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { MAX_TOOLS, type ChatResponse, type ToolCall } from "@reviewbot/contracts/chat";
import { stopOf, Usage, usageOf } from "./anthropic-response.js";
import { answeringModel, argumentsText, checkedResponse, invalidResponse, parseOrRefuse } from "./protocol-common.js";
import { eventJson, MAX_STREAM_CHARS, readSseEvents } from "./sse.js";

/** The most content blocks one streamed message may open: far more than any answer has. */
const MAX_STREAM_BLOCKS = 4 * MAX_TOOLS;

const StreamEvent = z.looseObject({ type: z.string() });
const MessageStart = z.object({ message: z.object({ model: z.string().nullish(), usage: Usage.nullish() }) });
const BlockIndex = z
  .int()
  .nonnegative()
  .max(MAX_STREAM_BLOCKS - 1);
const BlockStart = z.object({
  index: BlockIndex,
  content_block: z.looseObject({
    type: z.string(),
    text: z.string().nullish(),
    id: z.string().nullish(),
    name: z.string().nullish(),
    input: z.unknown().optional(),
  }),
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
      blocks.set(index, {
        type: block.type,
        id: block.id ?? undefined,
        name: block.name ?? undefined,
        input: block.input,
        parts: block.type === "text" && typeof block.text === "string" ? [block.text] : [],
      });
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
      if (block.id === undefined || block.id === "" || block.name === undefined || block.name === "")
        throw invalidResponse(`streamed tool_use block ${index} has no id or name`);
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

/** The counts a usage object carries (null and absent ones left out, so they do not replace earlier counts). */
function present(usage: Usage | null | undefined): Usage {
  if (usage === undefined || usage === null) return {};
  return Object.fromEntries(Object.entries(usage).filter(([, value]) => typeof value === "number"));
}
