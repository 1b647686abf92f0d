import { isAppError } from "@reviewbot/core/errors";
import type { ChatMessage, ChatModel, TokenUsage, ToolCall } from "@reviewbot/contracts/chat";
import type { AiTool } from "../tools/ai-tool.js";
import { canonicalArguments } from "./canonical-arguments.js";
import { estimateTokens } from "../plan/estimate-tokens.js";
import { NOTE_MAX, runToolCall } from "./run-tool-call.js";
import type { SubmitTool } from "../tools/submit-tool.js";
import type { UntrustedKind } from "../untrusted-text.js";

/** Why a tool loop ended. */
export type LoopEnd = "submitted" | "turns" | "tokens" | "deadline" | "repeats" | "no-submit" | "budget";

export interface LoopLimits {
  /** Model calls for this loop, the last one included (a chunk's default 12, ceiling 30). */
  readonly maxTurns: number;
  /** The output cap asked for on each call. */
  readonly maxOutputTokens: number;
  /** Wall clock (epoch ms) by which the last turn must have started: within the job token's life. */
  readonly deadline: number;
  /** Identical tool calls answered from the conversation before the loop is made to finish. */
  readonly maxRepeats: number;
}

export interface ToolLoopInput {
  readonly model: ChatModel;
  /** Byte-identical for every turn and chunk of a job, like the tool list: providers cache the prefix. */
  readonly system: string;
  readonly tools: readonly AiTool[];
  /** The first user message (a chunk's diff and the PR, a review thread), PR text wrapped as untrusted data. */
  readonly opening: string;
  readonly limits: LoopLimits;
  /** Tokens the job may still spend (its budget at the broker, or the CLI's own). */
  readonly tokensLeft: () => number;
  /** Wraps a tool's untrusted answer as data (the job's envelope and nonce). */
  readonly wrap: (kind: UntrustedKind, label: string, text: string) => string;
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

/** How a tool loop ended: the model's validated submission, or null when it never made a valid one. */
export interface LoopOutcome<T> {
  readonly result: T | null;
  readonly ended: LoopEnd;
  readonly usage: TokenUsage;
  readonly turns: number;
  readonly toolCalls: number;
}

/** Consecutive text-only answers tolerated before the loop asks for the submission. */
const MAX_TEXT_ANSWERS = 2;

/**
 * A tool loop: the model browses with read-only tools until it calls `submit` (`submit_review`,
 * `submit_answer`), the only way to finish. The request prefix (system prompt, tools) never changes; when a cap is
 * reached (turns, the job's tokens, the wall clock, repeated identical calls, text answers) the
 * model gets one last turn in which only the submit tool runs. A text answer is never used: a
 * model that leaks a tool call as text is told to call the tool. Tool errors the model caused
 * (`ToolInputError`, `POLICY_DENIED`) become answers; anything else (a dead sandbox engine, git)
 * propagates and fails the review so that it is retried.
 */
export async function runToolLoop<T>(input: ToolLoopInput, submit: SubmitTool<T>): Promise<LoopOutcome<T>> {
  const now = input.now ?? Date.now;
  const name = submit.spec.name;
  const specs = [...input.tools.map((tool) => tool.spec), submit.spec];
  const byName = new Map(input.tools.map((tool) => [tool.spec.name, tool]));
  const messages: ChatMessage[] = [{ role: "user", content: input.opening }];
  const seen = new Map<string, number>();
  const usage = { inputTokens: 0, outputTokens: 0 };
  let turns = 0;
  let toolCalls = 0;
  let repeats = 0;
  let textAnswers = 0;
  let pending: LoopEnd | null = null;
  for (;;) {
    input.signal.throwIfAborted();
    const needed = estimateTokens(input.system) + estimateTokens(JSON.stringify(messages)) + input.limits.maxOutputTokens;
    const cap: LoopEnd | null =
      pending ??
      (turns + 1 >= input.limits.maxTurns ? "turns" : now() >= input.limits.deadline ? "deadline" : input.tokensLeft() < needed * 2 ? "tokens" : null);
    if (cap !== null && input.tokensLeft() < needed) return { result: null, ended: cap === "turns" ? "tokens" : cap, usage, turns, toolCalls };
    const final = cap !== null;
    if (final) messages.push({ role: "user", content: finalNote(cap, name) });
    let answer;
    try {
      answer = await input.model.complete(
        {
          model: input.model.model,
          system: input.system,
          messages,
          tools: specs,
          toolChoice: final ? "required" : "auto",
          maxTokens: input.limits.maxOutputTokens,
        },
        input.signal,
      );
    } catch (err) {
      if (isAppError(err) && err.code === "LLM_BUDGET_EXCEEDED") return { result: null, ended: "budget", usage, turns, toolCalls };
      throw err;
    }
    turns += 1;
    usage.inputTokens += answer.usage.inputTokens;
    usage.outputTokens += answer.usage.outputTokens;
    const calls = answer.toolCalls.slice(0, 16);
    messages.push({ role: "assistant", content: answer.content.slice(0, NOTE_MAX * 4), toolCalls: calls });
    if (calls.length === 0) {
      if (final) return { result: null, ended: cap, usage, turns, toolCalls };
      textAnswers += 1;
      if (textAnswers >= MAX_TEXT_ANSWERS) pending = "no-submit";
      messages.push({ role: "user", content: textAnswerNote(name) });
      continue;
    }
    textAnswers = 0;
    for (const call of calls) {
      toolCalls += 1;
      if (call.name === name) {
        const parsed = submit.parse(call.arguments);
        if (parsed.ok) return { result: parsed.value, ended: final ? cap : "submitted", usage, turns, toolCalls };
        messages.push(toolAnswer(call, `${name} was not accepted: ${parsed.problems.join("; ")}. Call ${name} again with these fixed.`));
        continue;
      }
      if (final) {
        messages.push(toolAnswer(call, `not run: the budget is spent. Call ${name} now.`));
        continue;
      }
      const key = `${call.name}\u0000${canonicalArguments(call.arguments)}`;
      const count = (seen.get(key) ?? 0) + 1;
      seen.set(key, count);
      if (count > 1) {
        repeats += 1;
        if (repeats >= input.limits.maxRepeats) pending = "repeats";
        messages.push(toolAnswer(call, `not run again: you made this exact call before; its answer is above. Try something else or call ${name}.`));
        continue;
      }
      messages.push(toolAnswer(call, await runToolCall(byName.get(call.name), call, input)));
    }
    if (final) return { result: null, ended: cap, usage, turns, toolCalls };
  }
}

function toolAnswer(call: ToolCall, content: string): ChatMessage {
  return { role: "tool", toolCallId: call.id, name: call.name, content };
}

function textAnswerNote(submit: string): string {
  return `Text answers are not read or posted. Use the tools through the tool-calling interface (not as text), and finish by calling ${submit}.`;
}

function finalNote(reason: LoopEnd, submit: string): string {
  const why: Record<LoopEnd, string> = {
    submitted: "",
    turns: "the turns allowed for this part are used",
    tokens: "the review's token budget is nearly spent",
    deadline: "the review's time is nearly up",
    repeats: "too many repeated calls",
    "no-submit": "nothing was submitted",
    budget: "the budget is spent",
  };
  return `Stop browsing: ${why[reason]}. Call ${submit} now with what you found so far; no other tool will run.`;
}
