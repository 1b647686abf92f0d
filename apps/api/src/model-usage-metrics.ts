import { Counter, type Registry } from "prom-client";
import type { TokenUsage } from "@reviewbot/contracts/chat";

/** What the model broker counts per installation: tokens and spend it settled, calls its budget refused. */
export interface ModelUsageMetrics {
  charged(installationId: number, usage: TokenUsage, microdollars: number): void;
  refused(installationId: number): void;
}

/**
 * The model broker's counters on the api's registry. The installation id is the api's own (the
 * claimed job's, never a worker's word), so the label set grows only with real installations.
 */
export function createModelUsageMetrics(registry: Registry): ModelUsageMetrics {
  const tokens = new Counter({
    name: "reviewbot_model_tokens_total",
    help: "Model tokens settled per installation, by kind (input, output).",
    labelNames: ["installation", "kind"],
    registers: [registry],
  });
  const spend = new Counter({
    name: "reviewbot_model_spend_dollars_total",
    help: "Model spend settled per installation, in US dollars, from the operator's price table.",
    labelNames: ["installation"],
    registers: [registry],
  });
  const refusals = new Counter({
    name: "reviewbot_model_budget_refusals_total",
    help: "Model calls refused because a job's or the installation's daily budget is used up.",
    labelNames: ["installation"],
    registers: [registry],
  });
  return {
    charged(installationId, usage, microdollars) {
      const installation = String(installationId);
      tokens.inc({ installation, kind: "input" }, usage.inputTokens);
      tokens.inc({ installation, kind: "output" }, usage.outputTokens);
      spend.inc({ installation }, microdollars / 1_000_000);
    },
    refused(installationId) {
      refusals.inc({ installation: String(installationId) });
    },
  };
}
