/**
 * Webhook bodies read at once by default: 8 × GitHub's 25 MiB is 200 MiB of unverified bytes at
 * most, inside the Compose limit of 512 MB with the rest of the process; GitHub's own deliveries
 * (tens of KiB, read in milliseconds) rarely overlap more than a few.
 */
export const DEFAULT_WEBHOOK_CONCURRENT_READS = 8;

/**
 * Reads (and waits for one) one address may have at once by default: half the default slots, so
 * no single address can hold them all, and still more than GitHub's own deliveries from one hook
 * address ever overlap (each is read in milliseconds).
 */
export const DEFAULT_WEBHOOK_READS_PER_SOURCE = 4;

/**
 * How fast a webhook body must arrive by default. The events the api acts on (pull requests,
 * comments) are tens of KiB and reach it in one burst, read in milliseconds; 5 s at the slowest
 * still leaves GitHub's 10 s answer deadline room for a wait in line (at most as long again) and
 * the enqueue. A 25 MiB body (GitHub's cap, which only pushes of thousands of commits reach) needs
 * 40 Mbit/s to make it. The minimum rate cuts a trickler after one second instead of five: 64 KiB
 * a second is far below any link GitHub delivers over.
 */
export const DEFAULT_WEBHOOK_BODY_DEADLINE_MS = 5000;
export const DEFAULT_WEBHOOK_MIN_BYTES_PER_SECOND = 65_536;

/**
 * Requests that may wait in line at once. A waiting request holds a socket and a closure, none of
 * its body, so the line can be long: long enough that strangers from many addresses (each held to
 * its share) do not fill it before GitHub's delivery joins it.
 */
const MAX_WAITING = 256;

/** Gives back a slot; calling it again does nothing. */
export type ReleaseSlot = () => void;

/** Why no slot was given: the address already has its share, or every slot stayed taken (and the line was full). */
export type SlotRefusal = "source" | "busy";

export interface BodyReadSlotLimits {
  /** Bodies read at once. */
  readonly limit: number;
  /** Reads plus waits one source may have at once. */
  readonly perSource: number;
  /**
   * How long a request waits in line for a slot before it is refused: at least as long as one body
   * may take to read, so that every slot taken when it joined the line has been given back by then.
   */
  readonly waitMs: number;
}

export interface BodyReadSlots {
  /**
   * A slot for a request from `source`: at once when one is free, else after waiting in line (first
   * come, first served; at most 256 wait) for up to `waitMs`. A source past its share is
   * refused at once, without waiting.
   */
  acquire(source: string): Promise<ReleaseSlot | SlotRefusal>;
  /** Slots taken now. */
  inUse(): number;
}

interface Waiter {
  readonly source: string;
  readonly grant: (release: ReleaseSlot) => void;
}

/**
 * Counts the webhook bodies being read at once. Until its signature is checked at the end, a body
 * is a stranger's bytes held in memory, so their number is bounded rather than their arrival:
 * `limit` × REVIEWBOT_WEBHOOK_MAX_BYTES is the most unverified data the api holds. Readers are cut
 * off when they are too slow (webhook-handler.ts), so a slot is always given back within one body's
 * deadline; a request that finds them all taken waits for the next one rather than being refused,
 * and one address cannot take more than `perSource` places, read or waiting.
 */
export function createBodyReadSlots(limits: BodyReadSlotLimits): BodyReadSlots {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  let taken = 0;
  const bySource = new Map<string, number>();
  const line: Waiter[] = [];
  const leave = (source: string): void => {
    const left = (bySource.get(source) ?? 1) - 1;
    if (left === 0) bySource.delete(source);
    else bySource.set(source, left);
  };
  const slotFor = (source: string): ReleaseSlot => {
    taken += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      taken -= 1;
      leave(source);
      const next = line.shift();
      if (next !== undefined) next.grant(slotFor(next.source));
    };
  };
  return {
    acquire(source) {
      const held = bySource.get(source) ?? 0;
      if (held >= limits.perSource) return Promise.resolve("source");
      if (taken < limits.limit) {
        bySource.set(source, held + 1);
        return Promise.resolve(slotFor(source));
      }
      if (line.length >= MAX_WAITING) return Promise.resolve("busy");
      bySource.set(source, held + 1);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          source,
          grant: (release) => {
            clearTimeout(timer);
            resolve(release);
          },
        };
        const timer = setTimeout(() => {
          line.splice(line.indexOf(waiter), 1);
          leave(source);
          resolve("busy");
        }, limits.waitMs);
        line.push(waiter);
      });
    },
    inUse: () => taken,
  };
}
