import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AppError } from "./errors.js";
import { parseOrThrow, type ParseOrThrowOptions } from "./parse-or-throw.js";

const Job = z.strictObject({ repository: z.string().regex(/^[\w.-]+\/[\w.-]+$/, "must be owner/name"), pulls: z.array(z.number().int()) });

function refusal(data: unknown, options?: ParseOrThrowOptions): AppError {
  try {
    parseOrThrow(Job, data, "JOB_INVALID", options);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("parseOrThrow accepted the data");
}

describe("parseOrThrow", () => {
  it("returns the parsed value", () => {
    expect(parseOrThrow(Job, { repository: "o/r", pulls: [1] }, "JOB_INVALID")).toEqual({ repository: "o/r", pulls: [1] });
  });

  it.each([
    ["a bad field", { repository: "nope", pulls: [] }, "repository", "repository: must be owner/name"],
    ["a nested field", { repository: "o/r", pulls: [1, 1.5] }, "pulls.1", "pulls.1: Invalid input: expected int, received number"],
    ["a value that is no object", [], "(root)", "(root): Invalid input: expected object, received array"],
    ["an unknown key, at the object that has it", { repository: "o/r", pulls: [], extra: 1 }, "(root)", '(root): Unrecognized key: "extra"'],
  ])("names the first issue of %s", (_name, data, field, message) => {
    const error = refusal(data);
    expect(error).toMatchObject({ code: "JOB_INVALID", retryable: false, message, details: { field } });
  });

  it("words the message, names the field and adds details as the caller says", () => {
    const error = refusal(
      { repository: "o/r", pulls: [], extra: 1 },
      {
        message: (problem) => `review job ${problem}`,
        field: (issue) => (issue.code === "unrecognized_keys" ? issue.keys.join(", ") : "other"),
        details: { jobId: "7" },
      },
    );
    expect(error).toMatchObject({ message: 'review job extra: Unrecognized key: "extra"', details: { field: "extra", jobId: "7" } });
  });

  it("never repeats the value it refused", () => {
    expect(refusal({ repository: "secret-value", pulls: [] }).message).not.toContain("secret-value");
  });
});
