import { AppError } from "@reviewbot/core/errors";

/** Why a running review was aborted: a cancel request or a newer head, or the worker shutting down. */
export type AbortCause = "cancelled" | "shutdown";

/** The abort reason of a job handed back at shutdown: not a failure, another worker runs it. */
export class ShutdownHandback extends Error {
  override readonly name = "ShutdownHandback";
}

/**
 * The reviews running in this process, each with the AbortController that stops its sandboxes.
 * The cancel channel and the shutdown sequence reach a job only through here.
 */
export class RunningJobs {
  readonly #jobs = new Map<string, { controller: AbortController; done: Promise<void> }>();

  /** Registers a running job; call `finish` when its processor is done with it. */
  add(jobId: string): { signal: AbortSignal; finish: () => void } {
    const controller = new AbortController();
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      finish = () => {
        this.#jobs.delete(jobId);
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
    const all = Promise.all([...this.#jobs.values()].map((entry) => entry.done)).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => {
        resolve(false);
      }, ms);
    });
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Aborts every job still running so that each hands itself back to the queue. */
  handBackAll(): void {
    for (const entry of this.#jobs.values()) entry.controller.abort(new ShutdownHandback("worker shutting down"));
  }
}

/** What an aborted job's signal says about why it stopped. */
export function abortCause(signal: AbortSignal): AbortCause | null {
  if (!signal.aborted) return null;
  return signal.reason instanceof ShutdownHandback ? "shutdown" : "cancelled";
}
