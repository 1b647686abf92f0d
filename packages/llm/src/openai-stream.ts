import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { MAX_TOOLS, type ChatResponse, type ToolCall } from "@reviewbot/contracts/chat";
import { stopOf, Usage, usageOf } from "./openai-response.js";
import { answeringModel, checkedResponse, invalidResponse, nonEmpty, parseOrRefuse } from "./protocol-common.js";
import { eventJson, MAX_STREAM_CHARS, readSseEvents } from "./sse.js";

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
                  index: z
                    .int()
                    .nonnegative()
                    .max(MAX_TOOLS - 1),
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
    usage: usageOf(usage),
  });
}
