import { isAppError } from "@reviewbot/core/errors";
import type { ToolCall } from "@reviewbot/contracts/chat";
import type { AiTool } from "../tools/ai-tool.js";
import { ToolInputError } from "../tools/tool-input-error.js";
import type { UntrustedKind } from "../untrusted-text.js";

/** A trusted note to the model (a refusal, a reminder) is cut here; untrusted text is cut by the envelope. */
export const NOTE_MAX = 2000;

/**
 * Runs one tool call of the model and returns the answer it gets: the tool's text wrapped as
 * untrusted data under the tool's kind, or, for a call the model can correct (an unknown tool,
 * arguments that are not JSON, a `ToolInputError`, a `POLICY_DENIED` refusal), our own words.
 * Any other error (a dead sandbox engine, git) propagates: the review fails and is retried.
 */
export async function runToolCall(
  tool: AiTool | undefined,
  call: ToolCall,
  context: { readonly wrap: (kind: UntrustedKind, label: string, text: string) => string; readonly signal: AbortSignal },
): Promise<string> {
  if (tool === undefined) return `no tool is named ${JSON.stringify(call.name.slice(0, 64))}; the tools are listed in this request`;
  let args: unknown;
  try {
    args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
  } catch {
    return `${call.name}: the arguments are not valid JSON`;
  }
  try {
    const text = await tool.run(args, context.signal);
    return context.wrap(tool.untrusted, call.name, text);
  } catch (err) {
    if (err instanceof ToolInputError) return err.message.slice(0, NOTE_MAX);
    if (isAppError(err) && err.code === "POLICY_DENIED") return `${call.name}: refused: ${err.message}`.slice(0, NOTE_MAX);
    throw err;
  }
}
