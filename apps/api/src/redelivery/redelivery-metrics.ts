import { Counter, Gauge, type Registry } from "prom-client";

/** Outcomes of one lost delivery in a sweep: asked for, asking failed, or left to another sweep that claimed it. */
export type RedeliveryOutcome = "requested" | "failed" | "claimed_elsewhere";

export interface RedeliveryMetrics {
  readonly redeliveries: Counter<"outcome">;
  readonly backlog: Gauge;
}

/** The sweep's metrics on the api's registry; docs/operations.md's redelivery alert reads them. */
export function createRedeliveryMetrics(registry: Registry): RedeliveryMetrics {
  return {
    redeliveries: new Counter({
      name: "reviewbot_redeliveries_total",
      help: "Failed webhook deliveries the redelivery sweep met, by outcome (requested, failed, claimed_elsewhere)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    backlog: new Gauge({
      name: "reviewbot_redelivery_backlog",
      help: "Failed deliveries missing from the ledger that the last sweep did not ask GitHub to redeliver",
      registers: [registry],
    }),
  };
}
