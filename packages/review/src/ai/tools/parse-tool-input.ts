import type { z } from "zod";
import { formatPath } from "@reviewbot/policy/config-error";
import { ToolInputError } from "./tool-input-error.js";

/** How many problems one refusal lists: enough to fix the call, too few to flood the turn. */
const MAX_PROBLEMS = 5;
/** zod repeats unknown keys in its messages; the model chose them, so they are cut short. */
const MAX_PROBLEM_CHARS = 200;

/**
 * Validates a tool's arguments (the model's JSON, untrusted) against `schema`, or throws a
 * {@link ToolInputError} naming each bad field (`startLine: Too small: expected number to be >=1`).
 */
export function parseToolInput<S extends z.ZodType>(tool: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.slice(0, MAX_PROBLEMS).map((issue) => `${formatPath(issue.path)}: ${issue.message}`.slice(0, MAX_PROBLEM_CHARS));
  throw new ToolInputError(`${tool}: invalid arguments: ${problems.join("; ")}`);
}
