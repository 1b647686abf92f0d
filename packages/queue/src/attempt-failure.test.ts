import { UnrecoverableError } from "bullmq";
import { describe, expect, it } from "vitest";
import { AppError } from "@reviewbot/core/errors";
import { attemptFailure } from "./attempt-failure.js";

const retryable = new AppError("GITHUB_API_FAILED", "GitHub answered 502");
const final = new AppError("JOB_INVALID", "review job repository: must be owner/name\nsecond line");
const bug = new TypeError("x is undefined");

describe("attemptFailure", () => {
  it.each([
    [
      "a final AppError on the first of five attempts",
      final,
      0,
      5,
      { code: "JOB_INVALID", attempt: 1, retryable: false, final: true, reason: "review job repository: must be owner/name" },
    ],
    ["a retryable AppError before the last attempt", retryable, 3, 5, { code: "GITHUB_API_FAILED", attempt: 4, final: false }],
    ["a retryable AppError on the last attempt", retryable, 4, 5, { code: "GITHUB_API_FAILED", attempt: 5, retryable: true, final: true }],
    ["an error that is no AppError, retried", bug, 0, 2, { code: "INTERNAL", attempt: 1, final: false, reason: "x is undefined" }],
    ["an error that is no AppError, on the last attempt", bug, 1, 2, { code: "INTERNAL", attempt: 2, retryable: true, final: true }],
    ["a thrown string", "boom", 0, 1, { code: "INTERNAL", attempt: 1, final: true, reason: "boom" }],
  ])("maps %s", (_name, err, attemptsMade, attempts, expected) => {
    expect(attemptFailure({ attemptsMade, opts: { attempts } }, err)).toMatchObject(expected);
  });

  it("counts a job without an attempts option as one attempt", () => {
    expect(attemptFailure({ attemptsMade: 0, opts: {} }, retryable).final).toBe(true);
  });

  it("throws an UnrecoverableError naming code and reason when the failure is final, the error itself otherwise", () => {
    const thrown = attemptFailure({ attemptsMade: 0, opts: { attempts: 5 } }, final).thrown;
    expect(thrown).toBeInstanceOf(UnrecoverableError);
    expect((thrown as Error).message).toBe("JOB_INVALID: review job repository: must be owner/name");
    expect(attemptFailure({ attemptsMade: 0, opts: { attempts: 5 } }, retryable).thrown).toBe(retryable);
  });
});
