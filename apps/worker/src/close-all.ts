/**
 * Runs every cleanup step in order even when one throws (BullMQ's habit), then rethrows the
 * first failure. Each step is named so the caller can log which one failed.
 */
export async function closeAll(steps: readonly (readonly [string, () => Promise<unknown>])[], onError: (step: string, err: unknown) => void): Promise<void> {
  let first: Error | undefined;
  for (const [name, step] of steps) {
    try {
      await step();
    } catch (err) {
      onError(name, err);
      first ??= err instanceof Error ? err : new Error(String(err));
    }
  }
  if (first !== undefined) throw first;
}
