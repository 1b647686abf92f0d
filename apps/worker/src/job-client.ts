import { setTimeout as delay } from "node:timers/promises";
import type { z } from "zod";
import { AppError, ErrorCode, isAppError } from "@reviewbot/core/errors";
import type { Logger } from "@reviewbot/core/logger";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import {
  AiCacheResponse,
  ClaimResponse,
  FetchResponse,
  JOB_AI_CACHE_PATH,
  JOB_CLAIM_PATH,
  JOB_FETCH_PATH,
  JOB_MODEL_PATH,
  JOB_REPORT_PATH,
  ModelResponse,
  ReportResponse,
} from "@reviewbot/contracts/worker-protocol";
import { apiRetryAfterMs, type WaitBounds } from "./api-retry-after.js";
import type { ClaimedJob } from "./claimed-job.js";
import { isRefusal, type HeldJob } from "./held-job.js";

/** The broker's answers about the model and fetches: final for the call, whatever their status. */
const BROKER_ANSWERS: ReadonlySet<ErrorCode> = new Set(["LLM_UNAVAILABLE", "LLM_REFUSED", "LLM_RESPONSE_INVALID", "LLM_BUDGET_EXCEEDED", "FETCH_FAILED"]);

/** A model call refused as busy waits the api's `Retry-After`, within these bounds. */
const MODEL_BUSY_WAIT_MS: WaitBounds = { min: 500, max: 30_000, otherwise: 2000 };

export interface JobClientOptions {
  /** The api's base URL (REVIEWBOT_API_URL). */
  readonly apiUrl: string;
  /** This worker's `<name>.<secret>` (REVIEWBOT_WORKER_CREDENTIAL). */
  readonly credential: string;
  readonly timeoutMs: number;
  /** The deadline of one model call through the broker, which retries the provider itself (default 10 min). */
  readonly modelTimeoutMs?: number;
  /** Attempts per call for network errors and 5xx answers; default 3. */
  readonly attempts?: number;
}

/** What a worker asks of the api for a job it holds, with the lock token BullMQ gave it. */
export interface JobClient {
  /** The job this worker holds under `lockToken`, before any claim: enough to report how it ended. Sends nothing. */
  hold(jobId: string, lockToken: string, logger: Logger): HeldJob;
  /** Claims a held job: the api answers with the job as it sealed it, and its repository token when it has a GitHub App. */
  claim(held: HeldJob): Promise<ClaimedJob>;
}

/**
 * The worker's side of the api's worker routes (packages/contracts worker-protocol). A refusal keeps
 * its code (`JOB_NOT_HELD`, `OUTCOME_RECORDED`, …: final; a report returns it instead, see
 * {@link HeldJob.report}), except a refused credential, which says
 * nothing about the job (retryable: another worker may run it); network errors and 5xx are retried a few
 * times, then surface as retryable `API_UNAVAILABLE`, so the job is retried. `INSTALLATION_BUSY` is
 * not retried here: it carries the api's `Retry-After` (as `details.retryAfterMs`) for the job's caller.
 * Nor are the broker's `LLM_*` and `FETCH_FAILED` answers: the broker already retried, and each call costs.
 * `LLM_BUSY` is waited out: the broker admits a few model calls of an installation at a time, and
 * a refused call cost nothing; the call waits the api's `Retry-After` and asks again, without
 * spending an attempt, for as long as its own deadline and the review's signal allow.
 */
export function createJobClient(options: JobClientOptions): JobClient {
  const base = options.apiUrl.endsWith("/") ? options.apiUrl : `${options.apiUrl}/`;
  const call = async <T extends z.ZodType>(path: string, body: unknown, schema: T, timing: Timing = { timeoutMs: options.timeoutMs }): Promise<z.infer<T>> => {
    const attempts = options.attempts ?? 3;
    const waitUntil = Date.now() + timing.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await post(new URL(path.slice(1), base), body, schema, options.credential, timing);
      } catch (err) {
        if (isAppError(err) && err.code === "LLM_BUSY") {
          const waitMs = apiRetryAfterMs(err, MODEL_BUSY_WAIT_MS);
          if (Date.now() + waitMs > waitUntil) throw err;
          await delay(waitMs, undefined, timing.signal === undefined ? {} : { signal: timing.signal }).catch(() => timing.signal?.throwIfAborted());
          attempt -= 1;
          continue;
        }
        // A busy installation stays busy for a while: the job waits in the queue, not in this call.
        const retry = !isAppError(err) || (err.retryable && err.code !== "INSTALLATION_BUSY" && !BROKER_ANSWERS.has(err.code));
        if (!retry || attempt >= attempts) throw err;
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
      }
    }
  };
  const hold = (jobId: string, lockToken: string, logger: Logger): HeldJob => ({
    id: jobId,
    lockToken,
    logger,
    report: async (outcome) => {
      try {
        return await call(JOB_REPORT_PATH, { jobId, lockToken, outcome }, ReportResponse);
      } catch (err) {
        if (isAppError(err) && isRefusal(err.code)) return { status: "refused", error: err };
        throw err;
      }
    },
  });
  return {
    hold,
    claim: async (held) => {
      const { id: jobId, lockToken } = held;
      const claim = await call(JOB_CLAIM_PATH, { jobId, lockToken }, ClaimResponse);
      return {
        ...held,
        claim,
        model: (request, signal) =>
          call(JOB_MODEL_PATH, { jobId, lockToken, request }, ModelResponse, { timeoutMs: options.modelTimeoutMs ?? 600_000, signal }),
        fetch: (url, signal) => call(JOB_FETCH_PATH, { jobId, lockToken, url }, FetchResponse, { timeoutMs: options.timeoutMs, signal }),
        aiCache: {
          get: async (key) => (await call(JOB_AI_CACHE_PATH, { jobId, lockToken, op: "get", key }, AiCacheResponse)).result,
          put: async (key, result) => {
            await call(JOB_AI_CACHE_PATH, { jobId, lockToken, op: "put", key, result }, AiCacheResponse);
          },
        },
      };
    },
  };
}

interface Timing {
  readonly timeoutMs: number;
  /** The review's own signal: a cancelled review stops waiting for the api at once. */
  readonly signal?: AbortSignal | undefined;
}

async function post<T extends z.ZodType>(url: URL, body: unknown, schema: T, credential: string, timing: Timing): Promise<z.infer<T>> {
  let response: Response;
  const deadline = AbortSignal.timeout(timing.timeoutMs);
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${credential}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: timing.signal === undefined ? deadline : AbortSignal.any([deadline, timing.signal]),
      redirect: "error",
    });
  } catch (err) {
    timing.signal?.throwIfAborted();
    throw new AppError("API_UNAVAILABLE", "the api is unreachable", { cause: err });
  }
  const json = (await response.json().catch(() => null)) as { error?: { code?: unknown; message?: unknown } } | null;
  if (!response.ok) {
    // Only a code of the catalogue is taken at its word; anything else is the api being unavailable.
    const code = ErrorCode.safeParse(json?.error?.code).data;
    const message = typeof json?.error?.message === "string" ? json.error.message.slice(0, 300) : `HTTP ${response.status}`;
    // A refused credential says nothing about the job: another worker may run it (retryable).
    if (code === "UNAUTHENTICATED") throw new AppError("API_UNAVAILABLE", `the api refused this worker's credential (revoked?): ${message}`);
    if (response.status < 500 && code !== undefined) throw new AppError(code, `the api refused: ${message}`, { details: retryAfter(response) });
    // The broker's word on the model or a fetch (it retried the provider already) keeps its code.
    if (code !== undefined && BROKER_ANSWERS.has(code)) throw new AppError(code, `the broker answered: ${message}`);
    throw new AppError("API_UNAVAILABLE", `the api answered ${response.status}: ${message}`);
  }
  return parseOrThrow(schema, json, "API_UNAVAILABLE", { message: (problem) => `the api answered with an unexpected body at ${problem}` });
}

/** `Retry-After` in seconds (the only form the api sends), as `{ retryAfterMs }`; nothing otherwise. */
function retryAfter(response: Response): { retryAfterMs?: number } {
  const header = response.headers.get("retry-after") ?? "";
  return /^\d{1,6}$/.test(header) ? { retryAfterMs: Number(header) * 1000 } : {};
}
