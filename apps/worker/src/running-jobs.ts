import { AppError, isAppError } from "@reviewbot/core/errors";
import { settleWithin } from "@reviewbot/core/settle-within";

/**
 * Why a running review was aborted: a cancel request or a newer head, its wall-clock deadline, or
 * the worker shutting down.
 */
export type AbortCause = "cancelled" | "deadline" | "shutdown";

/** The abort reason of a job handed back at shutdown: not a failure, another worker runs it. */
export class ShutdownHandback extends Error {
  override readonly name = "ShutdownHandback";
}

export interface RunningJobsOptions {
  /** Every review is aborted this long after it was added (REVIEWBOT_REVIEW_DEADLINE_MS). */
  readonly deadlineMs: number;
}

interface Entry {
  readonly controller: AbortController;
  readonly done: Promise<void>;
}

/**
 * The reviews running in this process, each with the AbortController that stops its sandboxes.
 * The cancel channel, the review deadline and the shutdown sequence reach a job only through here.
 */
export class RunningJobs {
  readonly #jobs = new Map<string, Entry>();
  readonly #deadlineMs: number;

  constructor(options: RunningJobsOptions) {
    this.#deadlineMs = options.deadlineMs;
  }

  /**
   * Registers a running job, whose signal aborts with `REVIEW_TIMEOUT` once its deadline passes
   * (50 helpers of 300 s each must not hold a slot for hours); call `finish` when its
   * processor is done with it.
   */
  add(jobId: string): { signal: AbortSignal; finish: () => void } {
    const controller = new AbortController();
    const deadlineMs = this.#deadlineMs;
    const timer = setTimeout(() => {
      controller.abort(
        new AppError("REVIEW_TIMEOUT", `the review ran past its deadline of ${deadlineMs} ms (REVIEWBOT_REVIEW_DEADLINE_MS)`, { details: { deadlineMs } }),
      );
    }, deadlineMs);
    timer.unref();
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      finish = () => {
        clearTimeout(timer);
        if (this.#jobs.get(jobId)?.controller === controller) this.#jobs.delete(jobId);
        resolve();
      };
    });
    this.#jobs.set(jobId, { controller, done });
    return { signal: controller.signal, finish };
  }

  get size(): number {
    return this.#jobs.size;
  }

  /** Cancels one job (a superseded head, an operator's cancel); false when it does not run here. */
  cancel(jobId: string, reason: string): boolean {
    const entry = this.#jobs.get(jobId);
    if (entry === undefined) return false;
    entry.controller.abort(new AppError("REVIEW_CANCELLED", reason));
    return true;
  }

  /** Resolves when every job running now has finished, or after `ms`; true when they all did. */
  async drain(ms: number): Promise<boolean> {
    return settleWithin(
      Promise.all([...this.#jobs.values()].map((entry) => entry.done)).then(() => true),
      ms,
      false,
    );
  }

  /** Aborts every job still running so that each hands itself back to the queue. */
  handBackAll(): void {
    for (const entry of this.#jobs.values()) entry.controller.abort(new ShutdownHandback("worker shutting down"));
  }
}

/** What an aborted job's signal says about why it stopped. */
export function abortCause(signal: AbortSignal): AbortCause | null {
  if (!signal.aborted) return null;
  if (signal.reason instanceof ShutdownHandback) return "shutdown";
  return isAppError(signal.reason) && signal.reason.code === "REVIEW_TIMEOUT" ? "deadline" : "cancelled";
}

/**
 * Settles as `work` does, unless the signal aborts and `work` has not settled `graceMs` later:
 * then rejects with the signal's reason. Work that takes the signal (sandboxes) ends within the
 * grace, so what it held is gone before the caller reports; work that cannot be stopped at once
 * (a checkout in flight does not take the signal) is no longer waited for, and ends on its own
 * deadline.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      timer = setTimeout(() => {
        reject(signal.reason as Error);
      }, graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    void work
      .finally(() => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      })
      .then(resolve, reject);
  });
}
