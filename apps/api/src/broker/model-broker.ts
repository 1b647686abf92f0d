import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { fetchAllowlisted } from "@reviewbot/llm/fetch-allowlisted";
import { priceOf } from "@reviewbot/llm/llm-prices";
import type { LlmSettings } from "@reviewbot/llm/llm-settings";
import { createModelClient, longestCallMs } from "@reviewbot/llm/model-client";
import type { AiOffer } from "@reviewbot/contracts/worker-protocol";
import type { UrlFetcher } from "./fetch-handler.js";
import type { ModelUsageMetrics } from "../model-usage-metrics.js";
import { ModelBudget } from "./model-budget.js";
import type { ModelBrokerSettings } from "./model-handler.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** The model broker: what the model route calls, what the fetch route fetches with, what a claim offers. */
export interface ModelBroker extends ModelBrokerSettings {
  /** Null when the operator allowlisted no host: every fetch is refused. */
  readonly fetcher: UrlFetcher | null;
  /** What claims offer every job; `fetchUrl` is decided per job (never for a private repository). */
  readonly offer: Omit<AiOffer, "fetchUrl">;
}

export interface ModelBrokerDeps {
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly scrubber: SecretScrubber;
  /** Model calls one installation may have in flight at once (REVIEWBOT_LLM_INSTALLATION_CONCURRENCY). */
  readonly installationCalls: number;
  readonly usage: ModelUsageMetrics;
}

/**
 * The model broker's parts from the operator's settings: the upstream client (the key lives in
 * it, registered with the scrubber first), the budget counters, the price table, the allowlisted
 * fetcher, and what claims offer workers. Null when no model is configured.
 */
export function createModelBroker(llm: LlmSettings, deps: ModelBrokerDeps): ModelBroker | null {
  const { redis, keys, scrubber } = deps;
  if (!llm.enabled) return null;
  if (llm.apiKey !== "") scrubber.register(llm.apiKey);
  const client = createModelClient({ protocol: llm.protocol, baseUrl: llm.baseUrl, apiKey: llm.apiKey, timeoutMs: llm.timeoutMs });
  const budget = new ModelBudget(redis, keys, {
    jobTokens: llm.jobTokens,
    installationDailyTokens: llm.installationDailyTokens,
    jobMicrodollars: llm.jobMicrodollars,
    installationDailyMicrodollars: llm.installationDailyMicrodollars,
    installationCalls: deps.installationCalls,
    callTtlMs: longestCallMs(llm.timeoutMs),
  });
  const hosts = llm.fetchHosts;
  return {
    upstream: { model: llm.model, complete: (request, signal) => client.complete(request, signal) },
    models: llm.models,
    maxTokens: llm.maxTokens,
    budget,
    usage: deps.usage,
    price: (usage, model) => priceOf(usage, model, llm.prices),
    fetcher: hosts.length === 0 ? null : (url, signal) => fetchAllowlisted(url, { hosts, signal }),
    offer: { model: llm.model, maxOutputTokens: llm.maxTokens, contextTokens: llm.contextTokens, jobTokens: llm.jobTokens },
  };
}
