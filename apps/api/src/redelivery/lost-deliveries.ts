import type { HookDelivery } from "./hook-deliveries.js";

/** Whether GitHub counts the answer as delivered: any 2xx (0 is "could not connect"). */
export function succeeded(delivery: Pick<HookDelivery, "status_code">): boolean {
  return delivery.status_code >= 200 && delivery.status_code < 300;
}

/**
 * The deliveries GitHub never got a 2xx for: one per guid (its newest attempt, whose id a
 * redelivery names), leaving out every guid of which any attempt, first or redelivered, succeeded.
 * `deliveries` is GitHub's listing, newest first; the answer keeps that order.
 */
export function lostDeliveries(deliveries: readonly HookDelivery[]): HookDelivery[] {
  const delivered = new Set(deliveries.filter(succeeded).map((delivery) => delivery.guid));
  const lost = new Map<string, HookDelivery>();
  for (const delivery of deliveries) {
    if (!delivered.has(delivery.guid) && !lost.has(delivery.guid)) lost.set(delivery.guid, delivery);
  }
  return [...lost.values()];
}
