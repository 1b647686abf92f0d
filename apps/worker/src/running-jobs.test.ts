import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { abortCause, RunningJobs, untilAborted } from "./running-jobs.js";

describe("RunningJobs", () => {
  it("aborts a review at its deadline with REVIEW_TIMEOUT, and says so", async () => {
    const running = new RunningJobs({ deadlineMs: 30 });
    const { signal, finish } = running.add("job-1");
    expect(abortCause(signal)).toBeNull();
    await sleep(80);
    expect(abortCause(signal)).toBe("deadline");
    expect(signal.reason).toMatchObject({ name: "AppError", code: "REVIEW_TIMEOUT", retryable: false, details: { deadlineMs: 30 } });
    finish();
    expect(running.size).toBe(0);
  });

  it("does not abort a review that finished before its deadline (the negative control)", async () => {
    const running = new RunningJobs({ deadlineMs: 30 });
    const { signal, finish } = running.add("job-2");
    finish();
    await sleep(80);
    expect(signal.aborted).toBe(false);
  });

  it.each([
    ["a cancel", (jobs: RunningJobs): void => void jobs.cancel("job-3", "superseded"), "cancelled"],
    [
      "a hand-back at shutdown",
      (jobs: RunningJobs): void => {
        jobs.handBackAll();
      },
      "shutdown",
    ],
  ] as const)("tells %s from a deadline", (_name, abort, cause) => {
    const running = new RunningJobs({ deadlineMs: 60_000 });
    const { signal, finish } = running.add("job-3");
    abort(running);
    expect(abortCause(signal)).toBe(cause);
    finish();
  });
});

describe("untilAborted", () => {
  function pending(): { work: Promise<string>; settle: () => void } {
    let settle = (): void => {
      throw new Error("not set");
    };
    const work = new Promise<string>((resolve) => {
      settle = () => {
        resolve("late");
      };
    });
    return { work, settle };
  }

  it("rejects with the abort reason once the grace has passed and the work still runs", async () => {
    const controller = new AbortController();
    const { work, settle } = pending();
    const waiting = untilAborted(work, controller.signal, 30);
    controller.abort(new Error("deadline"));
    await expect(waiting).rejects.toThrow("deadline");
    settle();
    await expect(work).resolves.toBe("late");
  });

  it("passes on work that settles within the grace after an abort (sandboxes killed before the report)", async () => {
    const controller = new AbortController();
    const { work, settle } = pending();
    const waiting = untilAborted(work, controller.signal, 5_000);
    controller.abort(new Error("deadline"));
    setTimeout(settle, 20);
    await expect(waiting).resolves.toBe("late");
  });

  it("passes on the result of work that ends first", async () => {
    await expect(untilAborted(Promise.resolve("done"), new AbortController().signal, 0)).resolves.toBe("done");
  });

  it("passes on the failure of work that ends first", async () => {
    await expect(untilAborted(Promise.reject(new Error("git failed")), new AbortController().signal, 0)).rejects.toThrow("git failed");
  });

  it("starts the grace at once when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled"));
    await expect(untilAborted(new Promise<never>(() => undefined), controller.signal, 10)).rejects.toThrow("cancelled");
  });
});
