import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { fetchAllowlisted } from "@reviewbot/llm/fetch-allowlisted";
import type { LlmSettings } from "@reviewbot/llm/llm-settings";
import { createModelClient } from "@reviewbot/llm/model-client";
import { createAiReviewer } from "./ai-review.js";
import type { AiReviewer } from "./ai-reviewer.js";
import { localModel } from "./local-model.js";

/**
 * The AI review of a process that is its own model broker (`reviewbot review`, the GitHub Action),
 * when a model is configured: the same loop as the worker's, with the process as its own broker (the provider called in-process, the key inside the
 * client and registered with `scrubber` by the caller, the budget in memory). Decisions that
 * differ from the worker's, because a local repository is not a GitHub one:
 *
 * - `fetch_url` is offered whenever the settings name fetch hosts: a local repository has no
 *   "private" flag to switch it off by, and the operator running the CLI chose those hosts (the
 *   action names none).
 * - No chunk cache: one run is one attempt, there is no retry to spare model calls for.
 *
 * Everything sent to the model is scrubbed of the secrets the scrubber holds (the key first).
 */
export function inProcessAiReviewer(
  llm: LlmSettings,
  deps: { readonly scrubber: SecretScrubber; readonly logger: Logger; readonly deadline: number },
): AiReviewer | undefined {
  if (!llm.enabled) return undefined;
  const client = createModelClient({ protocol: llm.protocol, baseUrl: llm.baseUrl, apiKey: llm.apiKey, timeoutMs: llm.timeoutMs });
  const model = localModel(client, llm);
  const hosts = llm.fetchHosts;
  return createAiReviewer({
    model,
    tokensLeft: () => model.tokensLeft(),
    contextTokens: llm.contextTokens,
    maxOutputTokens: llm.maxTokens,
    deadline: deps.deadline,
    ...(hosts.length === 0 ? {} : { fetchUrl: (url: string, signal: AbortSignal) => fetchAllowlisted(url, { hosts, signal }) }),
    scrub: (text) => deps.scrubber.scrub(text),
    logger: deps.logger,
  });
}
