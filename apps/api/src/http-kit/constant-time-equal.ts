import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Compares a presented secret with the expected one in time that depends on neither content nor
 * length: both are hashed to 32 bytes first, so `timingSafeEqual` never sees different lengths
 * (which it would refuse, leaking the expected length through an early return).
 */
export function constantTimeEqual(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b) && presented.length === expected.length;
}
