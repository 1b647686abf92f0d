import type { z } from "zod";
import { AppError, type ErrorCode } from "./errors.js";

/** The field named for a problem with the value as a whole. */
const ROOT_FIELD = "(root)";

export interface ParseOrThrowOptions {
  /** Turns the first problem, `field: reason`, into the error's message; by default it is the message. */
  readonly message?: (problem: string) => string;
  /** Names an issue's field; by default its path joined with `.`, or `(root)`. */
  readonly field?: (issue: z.core.$ZodIssue) => string;
  /** Context the error carries besides `field`. */
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * `data` through `schema`, or an `AppError` with `code` that names the first issue: its field and
 * zod's message, which names what was expected, never the value received. The field is also in
 * the error's details.
 *
 * @throws AppError `code` when `data` does not match `schema`.
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, data: unknown, code: ErrorCode, options: ParseOrThrowOptions = {}): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue === undefined ? ROOT_FIELD : (options.field ?? pathOf)(issue);
  const problem = `${field}: ${issue?.message ?? "invalid"}`;
  throw new AppError(code, options.message === undefined ? problem : options.message(problem), { details: { ...options.details, field } });
}

function pathOf(issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? ROOT_FIELD : issue.path.map(String).join(".");
}
