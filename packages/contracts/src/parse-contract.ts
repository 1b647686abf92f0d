import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import type { z } from "zod";

/**
 * Reads a payload that crossed Redis against its contract. A mismatch is a final `JOB_INVALID`
 * that names the first bad field, so the job fails with its reason and never runs.
 */
export function parseContract<T extends z.ZodType>(schema: T, what: string, data: unknown): z.infer<T> {
  return parseOrThrow(schema, data, "JOB_INVALID", { message: (problem) => `${what} ${problem}` });
}
