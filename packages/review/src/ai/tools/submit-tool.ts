import type { ToolSpec } from "@reviewbot/contracts/chat";
import type { z } from "zod";
import { toolParameters } from "./tool-parameters.js";

/** How many problems one answer to the model lists: enough to fix a call, too few to flood the turn. */
const MAX_PROBLEMS = 10;

/** The arguments of a submit tool call, or the problems to tell the model so it can call again. */
export type ParsedSubmission<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: readonly string[] };

/** The tool a tool loop ends with (`submit_review`, `submit_answer`): its spec, and how its arguments are read. */
export interface SubmitTool<T> {
  readonly spec: ToolSpec;
  parse(argumentsJson: string): ParsedSubmission<T>;
}

/**
 * A submit tool whose arguments are `schema`. Its parameters are a plain JSON Schema object (no
 * `$schema`, no `$ref`), which both OpenAI function `parameters` and Anthropic `input_schema`
 * take; optional fields keep it outside OpenAI's `strict` mode, so a call is checked here instead:
 * text over `maxChars` is refused before it is parsed (JSON.parse holds all of it in memory at
 * once), and problems name the field (`findings[2].line: …`), at most ten of them, each short.
 */
export function submitTool<S extends z.ZodType>(name: string, description: string, schema: S, maxChars: number): SubmitTool<z.infer<S>> {
  return {
    spec: { name, description, parameters: toolParameters(schema) },
    parse(argumentsJson) {
      if (argumentsJson.length > maxChars) {
        return { ok: false, problems: [`the arguments are ${argumentsJson.length} characters long; at most ${maxChars} are read`] };
      }
      let value: unknown;
      try {
        value = JSON.parse(argumentsJson);
      } catch (error) {
        return { ok: false, problems: [`the arguments are not valid JSON (${short(error instanceof Error ? error.message : String(error))})`] };
      }
      const result = schema.safeParse(value);
      if (result.success) return { ok: true, value: result.data };
      const problems = result.error.issues.slice(0, MAX_PROBLEMS).map((issue) => `${fieldPath(issue.path)}: ${short(issue.message)}`);
      const more = result.error.issues.length - problems.length;
      return { ok: false, problems: more > 0 ? [...problems, `and ${more} more`] : problems };
    },
  };
}

function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(arguments)";
  return path.map((key, index) => (typeof key === "number" ? `[${key}]` : `${index === 0 ? "" : "."}${short(String(key), 60)}`)).join("");
}

// JSON.parse and zod messages may quote the model's text (a key, a value): kept short.
function short(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
