/**
 * Settles with `work`, or with `late` when it has not settled within `ms`; a failure of the work
 * rejects as it would have. The work itself goes on (it is not cancelled); the timer does not
 * outlive the call, so it keeps no process alive.
 */
export async function settleWithin<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      resolve(late);
    }, ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
