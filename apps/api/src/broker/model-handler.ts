import type { RequestHandler } from "express";
import { AppError, isAppError } from "@reviewbot/core/errors";
import type { ChatModel, ChatRequest, TokenUsage } from "@reviewbot/contracts/chat";
import { ModelRequest, type ModelResponse } from "@reviewbot/contracts/worker-protocol";
import { workerRoute, type WorkerRouteDeps } from "./worker-route.js";
import { witnessModelCall } from "./job-witness.js";
import { chargeOf, type ModelBudget } from "./model-budget.js";
import { recordModelDown } from "./model-outage.js";
import type { ModelUsageMetrics } from "../model-usage-metrics.js";

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
  /** Settled tokens and spend, and budget refusals, per installation (Prometheus). */
  readonly usage: ModelUsageMetrics;
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
 * and to what the job's and installation's budgets have left. Before it goes upstream the call
 * reserves its worst case against the job's and the installation's budgets (one call per job in
 * flight, a few per installation: `LLM_BUSY` otherwise); afterwards it is settled to its usage, or
 * left at its worst case when the upstream failed or the worker went away (the upstream call is
 * then aborted, but may already be billed). The diff pieces shown and the findings
 * submitted are recorded against the job (job-witness).
 * An upstream unavailable past the model client's retries is recorded for the job
 * (`recordModelDown`), so that the api retries the AI review alone.
 */
export function modelHandler(deps: ModelHandlerDeps): RequestHandler {
  return workerRoute(deps, ROUTE, async ({ body, job, signal, fields, response }) => {
    Object.assign(fields, { model: body.request.model });
    const settings = deps.model;
    const { budget } = settings;
    checkRequest(body.request, settings.models);
    const left = await budget.outputTokensLeft(body.jobId, job.installationId);
    const clamped: ChatRequest = { ...body.request, maxTokens: Math.max(1, Math.min(body.request.maxTokens, settings.maxTokens, left)) };
    const worst = worstCase(clamped);
    const reservation = await budget.reserve(body.jobId, job.installationId, chargeOf(worst, settings.price(worst, clamped.model))).catch((err: unknown) => {
      if (isAppError(err) && err.code === "LLM_BUDGET_EXCEEDED") settings.usage.refused(job.installationId);
      throw err;
    });
    const started = performance.now();
    // Never past the reservation's in-flight mark: once it expires another call may be admitted.
    const bounded = AbortSignal.any([signal, AbortSignal.timeout(budget.callTtlMs)]);
    const answer = await settings.upstream.complete(clamped, bounded).catch(async (err: unknown) => {
      await budget.settle(reservation, null);
      // The broker's own word that the endpoint is down: what makes a failed AI review one the api retries.
      if (!signal.aborted && isAppError(err) && err.code === "LLM_UNAVAILABLE") await recordModelDown(deps.redis, deps.keys, body.jobId);
      throw err;
    });
    const spent = settings.price(answer.usage, clamped.model);
    const used = await budget.settle(reservation, chargeOf(answer.usage, spent));
    settings.usage.charged(job.installationId, answer.usage, spent);
    // What the model was shown and what it submitted: the api's own account of the job's review.
    await witnessModelCall(deps.redis, deps.keys, body.jobId, body.request, answer);
    deps.logger.info(
      {
        ...fields,
        ...answer.usage,
        microdollars: spent,
        stop: answer.stop,
        toolCalls: answer.toolCalls.length,
        ms: Math.round(performance.now() - started),
        jobTokens: used.usedTokens,
      },
      "model call",
    );
    const reply: ModelResponse = { response: answer, budget: used };
    response.status(200).json(reply);
  });
}

/**
 * A call's worst case: the input at four characters a token, the output at the whole cap the call
 * was given. What a call is charged while in flight, and for good when its usage will never be
 * known (the upstream failed, or the worker walked away: providers bill a request whether or not
 * anyone reads the answer; without this, a worker could spend without limit by abandoning every
 * call before it is answered).
 */
function worstCase(request: ChatRequest): TokenUsage {
  return { inputTokens: Math.ceil(JSON.stringify(request).length / 4), outputTokens: request.maxTokens };
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
