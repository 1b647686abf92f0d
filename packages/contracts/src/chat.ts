import { z } from "zod";

/**
 * The provider-neutral chat contract: what the review loop asks of a model and what it gets back.
 * The worker sends a `ChatRequest` to the api's model broker, which validates it against these
 * schemas (strict: no unknown field reaches a provider), clamps it, and translates it to the
 * operator's protocol (`openai` chat completions or `anthropic` messages). The same types are the
 * CLI's in-process model.
 */

/** A tool name as both protocols accept it (`^[a-zA-Z0-9_-]{1,64}$`). */
export const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const MAX_TOOLS = 64;
export const MAX_MESSAGES = 400;
/** The longest text of one message (characters); the loop truncates before it wraps. */
export const MAX_MESSAGE_CHARS = 400_000;
/** The largest JSON Schema of one tool's parameters, serialised. */
export const MAX_TOOL_SCHEMA_CHARS = 16_000;

export const ToolName = z.string().regex(TOOL_NAME, "must be a tool name ([A-Za-z][A-Za-z0-9_-]{0,63})");

/** A tool the model may call: `parameters` is a JSON Schema object. */
export const ToolSpec = z.strictObject({
  name: ToolName,
  description: z.string().max(4000),
  parameters: z
    .record(z.string(), z.unknown())
    .refine((schema) => JSON.stringify(schema).length <= MAX_TOOL_SCHEMA_CHARS, `must serialise to at most ${MAX_TOOL_SCHEMA_CHARS} characters`),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

/** A tool call as the model made it; `arguments` is the JSON text the model wrote (unparsed, untrusted). */
export const ToolCall = z.strictObject({
  id: z.string().min(1).max(200),
  name: z.string().max(200),
  arguments: z.string().max(MAX_MESSAGE_CHARS),
});
export type ToolCall = z.infer<typeof ToolCall>;

const text = z.string().max(MAX_MESSAGE_CHARS);

export const ChatMessage = z.discriminatedUnion("role", [
  z.strictObject({ role: z.literal("user"), content: text }),
  z.strictObject({ role: z.literal("assistant"), content: text, toolCalls: z.array(ToolCall).max(MAX_TOOLS) }),
  z.strictObject({ role: z.literal("tool"), toolCallId: z.string().min(1).max(200), name: z.string().max(200), content: text }),
]);
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * One model call. `toolChoice`: `auto` (the model may answer or call tools), `required` (it must
 * call one), `none` (no tools: the last turn after a budget ran out).
 */
export const ChatRequest = z.strictObject({
  model: z.string().min(1).max(200),
  system: text,
  messages: z.array(ChatMessage).min(1).max(MAX_MESSAGES),
  tools: z.array(ToolSpec).max(MAX_TOOLS),
  toolChoice: z.enum(["auto", "required", "none"]),
  maxTokens: z.int().positive().max(1_000_000),
});
export type ChatRequest = z.infer<typeof ChatRequest>;

export const TokenUsage = z.strictObject({
  inputTokens: z.int().nonnegative(),
  outputTokens: z.int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/**
 * A model's answer. `stop`: `end` (it finished), `tool_calls` (it wants tool results), `length`
 * (it ran into `maxTokens`), `other` (anything else the provider said: a filter, an unknown reason).
 */
export const ChatResponse = z.strictObject({
  model: z.string().max(200),
  content: text,
  toolCalls: z.array(ToolCall).max(MAX_TOOLS),
  stop: z.enum(["end", "tool_calls", "length", "other"]),
  usage: TokenUsage,
});
export type ChatResponse = z.infer<typeof ChatResponse>;

/** What the review loop talks to: the api's broker from a worker, the provider itself in the CLI. */
export interface ChatModel {
  /** The model requests name (the operator's `REVIEWBOT_LLM_MODEL`). */
  readonly model: string;
  /** @throws AppError `LLM_UNAVAILABLE` (retryable), `LLM_REFUSED`, `LLM_BUDGET_EXCEEDED`. */
  complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResponse>;
}

/**
 * A `ChatModel` that spends from one review's token budget: the worker's, whose budget the api's
 * broker keeps per job, and the CLI's, which keeps it in memory. The review loop reads what is left
 * to plan its last turn.
 */
export interface BudgetedModel extends ChatModel {
  /** Tokens the review may still spend, as last counted (its whole budget before the first call). */
  tokensLeft(): number;
}
