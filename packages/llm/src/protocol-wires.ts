import { AppError } from "@reviewbot/core/errors";
import type { ChatRequest, ChatResponse } from "@reviewbot/contracts/chat";
import { ANTHROPIC_VERSION, toAnthropicBody } from "./anthropic-request.js";
import { parseAnthropicResponse } from "./anthropic-response.js";
import { parseAnthropicStream } from "./anthropic-stream.js";
import type { LlmProtocol } from "./llm-settings.js";
import { toOpenAiBody } from "./openai-request.js";
import { parseOpenAiResponse } from "./openai-response.js";
import { parseOpenAiStream } from "./openai-stream.js";

/** A protocol as the model client speaks it: the request body, the auth headers, the answer's parsers. */
export interface Wire {
  readonly body: (request: ChatRequest) => unknown;
  readonly parse: (json: unknown, model: string) => ChatResponse;
  readonly parseStream: (text: string, model: string, maxChars: number) => ChatResponse;
  readonly headers: (apiKey: string) => Record<string, string>;
}

export const WIRES: Readonly<Record<LlmProtocol, Wire>> = {
  openai: {
    body: toOpenAiBody,
    parse: parseOpenAiResponse,
    parseStream: parseOpenAiStream,
    headers: (apiKey): Record<string, string> => (apiKey === "" ? {} : { authorization: `Bearer ${apiKey}` }),
  },
  anthropic: {
    body: toAnthropicBody,
    parse: parseAnthropicResponse,
    parseStream: parseAnthropicStream,
    headers: (apiKey) => ({ ...(apiKey === "" ? {} : { "x-api-key": apiKey }), "anthropic-version": ANTHROPIC_VERSION }),
  },
};

/**
 * A 2xx body as the protocol's answer: read as an event stream when the content type says so or the
 * text starts like one (an endpoint that streams although asked not to), else as JSON
 * (`LLM_RESPONSE_INVALID` when it is not JSON), each by the protocol's parser.
 */
export function parseAnswer(wire: Wire, contentType: string, text: string, model: string, maxChars: number): ChatResponse {
  const head = text.trimStart().slice(0, 6);
  if (/text\/event-stream/i.test(contentType) || head.startsWith("data:") || head.startsWith("event:") || head.startsWith(":")) {
    return wire.parseStream(text, model, maxChars);
  }
  let json: unknown;
  try {
    json = JSON.parse(text) as unknown;
  } catch {
    throw new AppError("LLM_RESPONSE_INVALID", "the model endpoint's 2xx body is not JSON");
  }
  return wire.parse(json, model);
}
