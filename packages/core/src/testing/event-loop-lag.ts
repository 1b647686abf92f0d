/**
 * For the test suites and benchmarks (never used at run time): runs `action` while an interval
 * timer samples the event loop, and returns its result and the worst delay seen (ms, rounded).
 */
export async function withEventLoopLag<T>(action: () => Promise<T>, intervalMs = 20): Promise<{ result: T; maxLagMs: number }> {
  let maxLagMs = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    maxLagMs = Math.max(maxLagMs, now - last - intervalMs);
    last = now;
  }, intervalMs);
  try {
    const result = await action();
    return { result, maxLagMs: Math.round(maxLagMs) };
  } finally {
    clearInterval(timer);
  }
}
