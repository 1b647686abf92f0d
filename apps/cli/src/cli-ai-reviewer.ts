import type { Logger } from "@reviewbot/core/logger";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { fetchAllowlisted } from "@reviewbot/llm/fetch-allowlisted";
import type { LlmSettings } from "@reviewbot/llm/llm-settings";
import { createModelClient } from "@reviewbot/llm/model-client";
import { createAiReviewer } from "@reviewbot/review/ai/ai-review";
import type { AiReviewer } from "@reviewbot/review/ai/ai-reviewer";
import { localModel } from "./local-model.js";

/**
 * The AI review of `reviewbot review`, when REVIEWBOT_LLM_BASE_URL is set: the same loop as the
 * worker's, with the CLI as its own broker (the provider called in-process, the key inside the
 * client and registered with `scrubber` by the caller, the budget in memory). Decisions that
 * differ from the worker's, because a local repository is not a GitHub one:
 *
 * - `fetch_url` is offered whenever REVIEWBOT_LLM_FETCH_HOSTS names hosts: a local repository has
 *   no "private" flag to switch it off by, and the operator running the CLI chose those hosts.
 * - No chunk cache: one run is one attempt, there is no retry to spare model calls for.
 *
 * Everything sent to the model is scrubbed of the secrets the scrubber holds (the key first).
 */
export function cliAiReviewer(
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
