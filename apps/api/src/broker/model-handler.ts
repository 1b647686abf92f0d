import type { RequestHandler } from "express";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { ChatModel, ChatRequest, TokenUsage } from "@reviewbot/contracts/chat";
import { ModelRequest, type ModelResponse } from "@reviewbot/contracts/worker-protocol";
import { workerRoute, type WorkerRouteDeps } from "./worker-route.js";
import type { ModelBudget } from "./model-budget.js";
import { recordModelDown } from "./model-outage.js";

/** The largest model request a worker may send: a long conversation of capped tool results. */
export const MAX_MODEL_REQUEST_BYTES = 8 * 1024 * 1024;

export interface ModelBrokerSettings {
  /** The upstream model, with the operator's key inside it (never in a request, a log or Redis). */
  readonly upstream: ChatModel;
  /** Models a request may name; the first is the default the worker is told about. */
  readonly models: readonly string[];
  /** The output cap per call, whatever the worker asks. */
  readonly maxTokens: number;
  readonly budget: ModelBudget;
  /** The spend of one answer, in microdollars, from the operator's price table. */
  readonly price: (usage: TokenUsage, model: string) => number;
}

export interface ModelHandlerDeps extends WorkerRouteDeps {
  readonly model: ModelBrokerSettings;
}

const ROUTE = { name: "model", schema: ModelRequest, maxBytes: MAX_MODEL_REQUEST_BYTES, purpose: "use", noStore: true } as const;

/**
 * `POST /internal/jobs/model`: one model call for a job the calling worker claimed (the same checks
 * as a report, and the job must not have ended). The request was already held to the strict chat
 * contract (tool names of one shape, bounded schemas, no unknown field); here it is held to the
 * operator's settings: an allowlisted model, each tool offered once, and an output cap clamped to the operator's
 * and to what the job's and installation's budgets have left. The upstream call is aborted when
 * the worker goes away (and charged at its worst case). Usage is recorded against the job and its
 * installation; an upstream unavailable past the model client's retries is recorded for the job
 * (`recordModelDown`), so that the api retries the AI review alone.
 */
export function modelHandler(deps: ModelHandlerDeps): RequestHandler {
  return workerRoute(deps, ROUTE, async ({ body, job, signal, fields, response }) => {
    Object.assign(fields, { model: body.request.model });
    const settings = deps.model;
    checkRequest(body.request, settings.models);
    const admitted = await settings.budget.admit(body.jobId, job.installationId);
    const clamped: ChatRequest = { ...body.request, maxTokens: Math.max(1, Math.min(body.request.maxTokens, settings.maxTokens, admitted.outputTokensLeft)) };
    const started = performance.now();
    const answer = await settings.upstream.complete(clamped, signal).catch(async (err: unknown) => {
      if (signal.aborted) await chargeAbandoned(settings, body.jobId, job.installationId, clamped);
      // The broker's own word that the endpoint is down: what makes a failed AI review one the api retries.
      else if (isAppError(err) && err.code === "LLM_UNAVAILABLE") await recordModelDown(deps.redis, body.jobId);
      throw err;
    });
    const spent = settings.price(answer.usage, clamped.model);
    const budget = await settings.budget.record(body.jobId, job.installationId, answer.usage, spent);
    deps.logger.info(
      {
        ...fields,
        ...answer.usage,
        microdollars: spent,
        stop: answer.stop,
        toolCalls: answer.toolCalls.length,
        ms: Math.round(performance.now() - started),
        jobTokens: budget.usedTokens,
      },
      "model call",
    );
    const reply: ModelResponse = { response: answer, budget };
    response.status(200).json(reply);
  });
}

/**
 * Charges a call the worker walked away from at its worst case: the request was sent, providers
 * bill it whether or not anyone reads the answer, and its usage will never be known. Without
 * this, a worker could spend without limit by abandoning every call before it is answered. The
 * input is estimated at four characters a token; the output at the whole cap the call was given.
 */
async function chargeAbandoned(settings: ModelBrokerSettings, jobId: string, installationId: number, request: ChatRequest): Promise<void> {
  const usage: TokenUsage = { inputTokens: Math.ceil(JSON.stringify(request).length / 4), outputTokens: request.maxTokens };
  await settings.budget.record(jobId, installationId, usage, settings.price(usage, request.model));
}

/**
 * The operator's rules a contract-valid request must also meet.
 *
 * @throws AppError `POLICY_DENIED` naming the rule.
 */
function checkRequest(request: ChatRequest, models: readonly string[]): void {
  if (!models.includes(request.model)) {
    throw new AppError("POLICY_DENIED", `model ${JSON.stringify(request.model)} is not one the operator allows`);
  }
  const offered = new Set<string>();
  for (const tool of request.tools) {
    if (offered.has(tool.name)) throw new AppError("POLICY_DENIED", `tool ${tool.name} is offered twice`);
    offered.add(tool.name);
  }
}
