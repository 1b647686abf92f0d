import { reply, type ModelStandInRequest, type Script, type ScriptedToolCall } from "@reviewbot/llm/testing/model-stand-in";

/** What the AI benchmark reads of one recorded model request, in either protocol. */
export interface RequestParts {
  /** The body's size on the wire. */
  readonly bytes: number;
  /** The system prompt and the tools, serialised: the part providers cache when it repeats byte for byte. */
  readonly prefix: string;
  /** Assistant messages so far: 0 for a chunk's (or the synthesis's) first call. */
  readonly turn: number;
  /** The loop's last call after a cap: a tool call is required. */
  readonly final: boolean;
}

interface Body {
  readonly messages?: readonly { readonly role?: string }[];
  readonly system?: unknown;
  readonly tools?: unknown;
  readonly tool_choice?: unknown;
}

export function requestParts(request: ModelStandInRequest): RequestParts {
  const body = (request.json ?? {}) as Body;
  const messages = body.messages ?? [];
  // OpenAI carries the system prompt as the first message; Anthropic as a top-level field.
  const system = request.protocol === "openai" ? messages[0] : body.system;
  const choice = body.tool_choice;
  return {
    bytes: Buffer.byteLength(request.bodyText),
    prefix: JSON.stringify([system, body.tools]),
    turn: messages.filter((message) => message.role === "assistant").length,
    final: choice === "required" || (typeof choice === "object" && choice !== null && (choice as { type?: unknown }).type === "any"),
  };
}

/** Tokens as the stand-in counts them for its usage figures: about four characters a token. */
export function estimatedTokens(request: ModelStandInRequest): number {
  return Math.ceil(request.bodyText.length / 4);
}

/**
 * A model that, in every chunk's loop (and the synthesis), makes `calls` one a turn and then
 * calls `submit_review` with `review`; on a last turn after a cap it submits at once.
 */
export function browseThenSubmit(calls: readonly ScriptedToolCall[], review: Readonly<Record<string, unknown>>): Script {
  return (request) => {
    const { turn, final } = requestParts(request);
    const call = final ? undefined : calls[turn];
    return call === undefined ? reply.toolCall("submit_review", review) : reply.toolCalls([call]);
  };
}
