/**
 * Webhook bodies read at once by default: 8 × GitHub's 25 MiB is 200 MiB of unverified bytes at
 * most, inside the Compose limit of 512 MB with the rest of the process; GitHub's own deliveries
 * (tens of KiB, read in milliseconds) rarely overlap more than a few.
 */
export const DEFAULT_WEBHOOK_CONCURRENT_READS = 8;

/** Gives back a slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

export interface BodyReadSlots {
  /** A slot, or null when all `limit` are taken (the caller refuses at once: nothing waits). */
  tryAcquire(): ReleaseSlot | null;
  /** Slots taken now. */
  inUse(): number;
}

/**
 * Counts the webhook bodies being read at once. Until its signature is checked at the end, a body
 * is a stranger's bytes held in memory, so their number is bounded rather than their arrival:
 * `limit` × REVIEWBOT_WEBHOOK_MAX_BYTES is the most unverified data the api holds.
 */
export function createBodyReadSlots(limit: number): BodyReadSlots {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
  let taken = 0;
  return {
    tryAcquire() {
      if (taken >= limit) return null;
      taken += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        taken -= 1;
      };
    },
    inUse: () => taken,
  };
}
