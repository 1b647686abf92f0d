import { AppError } from "@reviewbot/core/errors";
import type { z } from "zod";

/**
 * Reads a payload that crossed Redis against its contract. A mismatch is a final `JOB_INVALID`
 * that names the first bad field, so the job fails with its reason and never runs.
 */
export function parseContract<T extends z.ZodType>(schema: T, what: string, data: unknown): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue === undefined || issue.path.length === 0 ? "(root)" : issue.path.join(".");
  throw new AppError("JOB_INVALID", `${what} ${field}: ${issue?.message ?? "invalid"}`);
}
