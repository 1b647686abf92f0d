import { AppError, isAppError, type ErrorCode } from "@reviewbot/core/errors";

/**
 * Settles with `work`, or rejects with `code` when it has not settled within `ms`; any other
 * failure of the work (a Redis error) becomes `code` too, with the cause kept. The work itself is
 * not cancelled (a Redis write may still land), so callers must be safe to repeat it.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, code: ErrorCode, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new AppError(code, message, { details: { deadlineMs: ms } }));
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } catch (err) {
    if (isAppError(err)) throw err;
    throw new AppError(code, message, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
