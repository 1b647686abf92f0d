import { performance } from "node:perf_hooks";
import { isAppError } from "@reviewbot/core/errors";
import type { ChatMessage, ChatRequest, ChatResponse, ToolCall, ToolSpec } from "@reviewbot/contracts/chat";
import type { ModelClient } from "./model-client.js";

export type ProbeStepName = "plain call" | "tool call" | "tool result";

/** One step of the probe: whether it passed, how long its call took, and why (or what came back). */
export interface ProbeStep {
  readonly name: ProbeStepName;
  readonly ok: boolean;
  /** Not run because an earlier step failed (`ok` false). */
  readonly skipped: boolean;
  /** The call's wall time, 0 when skipped. */
  readonly ms: number;
  readonly detail: string;
}

export interface ProbeReport {
  /** Every step passed: the endpoint can run the AI review's tool loop. */
  readonly ok: boolean;
  readonly steps: readonly ProbeStep[];
  /** What the probe cannot check but the operator should know (the context window). */
  readonly notes: readonly string[];
}

export interface ProbeOptions {
  /** `REVIEWBOT_LLM_CONTEXT_TOKENS`, reported as configured. */
  readonly contextTokens?: number;
  /** `REVIEWBOT_LLM_BASE_URL`, to recognise an Ollama-like endpoint. */
  readonly baseUrl?: string;
  /** Output cap per probe call; default 512 (room for a reasoning model's thoughts). */
  readonly maxTokens?: number;
  readonly signal?: AbortSignal;
}

export const PROBE_TOOL: ToolSpec = {
  name: "echo_number",
  description: "Returns the number it is given. Use it when asked to echo a number.",
  parameters: {
    type: "object",
    properties: { n: { type: "number", description: "The number to echo." } },
    required: ["n"],
    additionalProperties: false,
  },
};

const SYSTEM = "You are a connectivity check for a code review bot. Follow the instructions exactly and keep answers short.";
const ASK_TOOL: ChatMessage = {
  role: "user",
  content: "Call the echo_number tool with n = 42. After it returns, reply in one short sentence with the number it returned.",
};

/**
 * Checks that an endpoint can serve the AI review (for `reviewbot llm doctor`): a plain call (it
 * is reachable, the key and model are accepted), a tool call (`echo_number` offered with
 * `toolChoice: required`; a call with JSON arguments holding a number must come back) and the
 * tool's result sent back (a text answer must come back). A step that fails says why, in terms
 * an operator can act on (a tool call written as text: the server does not parse the model's
 * tool-call format); the steps after it are skipped. The context window cannot be asked of the
 * endpoint: the configured value is reported, with Ollama's server-side `num_ctx` caveat.
 *
 * @throws only the caller's abort reason; every other failure is a failed step.
 */
export async function probeEndpoint(client: Pick<ModelClient, "complete">, model: string, options: ProbeOptions = {}): Promise<ProbeReport> {
  const maxTokens = options.maxTokens ?? 512;
  const steps: ProbeStep[] = [];
  const call = async (
    name: ProbeStepName,
    request: Omit<ChatRequest, "model" | "system" | "maxTokens">,
  ): Promise<{ answer: ChatResponse | null; ms: number }> => {
    const started = performance.now();
    try {
      const answer = await client.complete({ model, system: SYSTEM, maxTokens, ...request }, options.signal);
      return { answer, ms: Math.round(performance.now() - started) };
    } catch (error) {
      if (options.signal?.aborted === true) throw options.signal.reason;
      const ms = Math.round(performance.now() - started);
      // A failed call is its step's result.
      steps.push({ name, ok: false, skipped: false, ms, detail: describeError(error) });
      return { answer: null, ms };
    }
  };
  const skipRest = (after: ProbeStepName): ProbeReport => {
    const names: ProbeStepName[] = ["plain call", "tool call", "tool result"];
    for (const name of names.slice(names.indexOf(after) + 1)) steps.push({ name, ok: false, skipped: true, ms: 0, detail: `skipped: the ${after} failed` });
    return { ok: false, steps, notes: notes(options) };
  };

  const plain = await call("plain call", { messages: [{ role: "user", content: "Reply with the single word: ready" }], tools: [], toolChoice: "auto" });
  if (plain.answer === null) return skipRest("plain call");
  const emptyNote = plain.answer.content === "" && plain.answer.stop === "length" ? "; no text before the output cap (a reasoning model? raise the cap)" : "";
  steps.push({ name: "plain call", ok: true, skipped: false, ms: plain.ms, detail: `answered (${summary(plain.answer)})${emptyNote}` });

  const tooling = await call("tool call", { messages: [ASK_TOOL], tools: [PROBE_TOOL], toolChoice: "required" });
  if (tooling.answer === null) return skipRest("tool call");
  const checked = checkToolCall(tooling.answer);
  steps.push({ name: "tool call", ok: checked.call !== null, skipped: false, ms: tooling.ms, detail: checked.detail });
  if (checked.call === null) return skipRest("tool call");

  const messages: ChatMessage[] = [
    ASK_TOOL,
    { role: "assistant", content: tooling.answer.content, toolCalls: [checked.call] },
    { role: "tool", toolCallId: checked.call.id, name: PROBE_TOOL.name, content: String(checked.n) },
  ];
  const result = await call("tool result", { messages, tools: [PROBE_TOOL], toolChoice: "auto" });
  if (result.answer === null) return { ok: false, steps, notes: notes(options) };
  const final = result.answer;
  const failure =
    final.toolCalls.length > 0
      ? "the model answered the tool result with another tool call instead of text"
      : final.content.trim() === ""
        ? `the model answered the tool result with no text (stop: ${final.stop})`
        : "";
  steps.push({
    name: "tool result",
    ok: failure === "",
    skipped: false,
    ms: result.ms,
    detail: failure === "" ? `answered in text (${summary(final)})` : failure,
  });
  return { ok: steps.every((step) => step.ok), steps, notes: notes(options) };
}

/** A leaked call: the model's tool-call markup came back as text (the server did not parse it). */
const LEAKED_CALL = /<tool_call>|<\|tool_call|\[TOOL_CALLS\]|"name"\s*:\s*"echo_number"|echo_number\s*\(/;

function checkToolCall(answer: ChatResponse): { call: ToolCall | null; n: number; detail: string } {
  const refused = (detail: string) => ({ call: null, n: 0, detail });
  const [call] = answer.toolCalls;
  if (call === undefined) {
    if (LEAKED_CALL.test(answer.content)) {
      return refused(
        "the model wrote its tool call as text: the server does not parse this model's tool-call format (vLLM: --enable-auto-tool-choice and a --tool-call-parser; llama.cpp: --jinja; Ollama: a model with tool support)",
      );
    }
    return refused(`the model answered without calling the tool although it had to (stop: ${answer.stop}): the server may ignore tool_choice`);
  }
  if (call.name !== PROBE_TOOL.name) return refused(`the model called ${JSON.stringify(call.name.slice(0, 64))}, not echo_number`);
  let args: unknown;
  try {
    args = JSON.parse(call.arguments) as unknown;
  } catch {
    return refused("the tool call's arguments are not valid JSON");
  }
  const n = typeof args === "object" && args !== null ? (args as { n?: unknown }).n : undefined;
  if (typeof n !== "number") return refused("the tool call's arguments have no number n");
  const extra = answer.toolCalls.length > 1 ? `; ${answer.toolCalls.length} calls, the first used` : "";
  return { call, n, detail: `called echo_number with n = ${n}${n === 42 ? "" : " (asked for 42)"}${extra} (${summary(answer)})` };
}

function notes(options: ProbeOptions): string[] {
  const notes: string[] = [];
  if (options.contextTokens !== undefined) {
    notes.push(`context window: ${options.contextTokens} tokens as configured (REVIEWBOT_LLM_CONTEXT_TOKENS); the endpoint cannot be asked for its own`);
  }
  if (options.baseUrl !== undefined && looksLikeOllama(options.baseUrl)) {
    notes.push(
      `this looks like Ollama: it runs a model with its own num_ctx (a few thousand tokens by default) whatever a request says, and cuts longer prompts silently; set num_ctx (OLLAMA_CONTEXT_LENGTH, or PARAMETER num_ctx in a Modelfile) to at least ${options.contextTokens ?? "REVIEWBOT_LLM_CONTEXT_TOKENS"} on the server`,
    );
  }
  return notes;
}

function looksLikeOllama(baseUrl: string): boolean {
  try {
    const url = new URL(baseUrl);
    return url.port === "11434" || /ollama/i.test(url.hostname);
  } catch {
    return false;
  }
}

function summary(answer: ChatResponse): string {
  return `model ${answer.model.slice(0, 100)}, stop ${answer.stop}, ${answer.usage.inputTokens} in / ${answer.usage.outputTokens} out tokens`;
}

function describeError(error: unknown): string {
  if (isAppError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
