import type { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import { ChatResponse, MAX_TOOLS } from "@reviewbot/contracts/chat";

/** `LLM_RESPONSE_INVALID` with `message`: what did not match, never the provider's text. */
export function invalidResponse(message: string): AppError {
  return new AppError("LLM_RESPONSE_INVALID", message);
}

/**
 * `value` through `schema`, or `LLM_RESPONSE_INVALID` naming the first issue's path and zod's
 * message (zod's messages name the expected type, never the received value).
 */
export function parseOrRefuse<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  return parseOrThrow(schema, value, "LLM_RESPONSE_INVALID", { message: (problem) => `${what} does not match the protocol at ${problem}` });
}

/** The answer as the chat contract has it, checked against it (lengths, counts, non-empty ids). */
export function checkedResponse(candidate: ChatResponse): ChatResponse {
  if (candidate.toolCalls.length > MAX_TOOLS) throw invalidResponse(`the answer makes more than ${MAX_TOOLS} tool calls`);
  return parseOrRefuse(ChatResponse, candidate, "the answer");
}

/** The model the answer names, else the one the request named (some servers leave it out). */
export function answeringModel(named: string | null | undefined, requested: string): string {
  return nonEmpty(named) ?? requested;
}

/** `value`, or undefined when it is absent, null or empty. */
export function nonEmpty(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === "" ? undefined : value;
}

/**
 * A tool call's arguments as the JSON text the contract carries: a string is kept as the model
 * wrote it; an object (some OpenAI-compatible servers send one, Anthropic always does) is serialised.
 */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value ?? {});
}

/**
 * Anthropic needs a tool_use `input` object where the contract has JSON text. Text that is not a
 * JSON object (the model wrote garbage, and the loop answered it with an error) is carried as
 * `{"_unparsed_arguments": text}`, so the model still sees what it wrote.
 */
export function argumentsObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // carried below
  }
  return { _unparsed_arguments: text };
}
