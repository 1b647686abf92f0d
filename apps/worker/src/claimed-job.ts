import type { ChatRequest } from "@reviewbot/contracts/chat";
import type { ClaimResponse, FetchResponse, ModelResponse } from "@reviewbot/contracts/worker-protocol";
import type { HeldJob } from "./held-job.js";

/**
 * A job the api let this worker claim: built by the job client (`jobs.claim`) when the claim
 * succeeds, once per attempt. Everything the run asks of the api for the job goes through it, with
 * the job id and lock token it was claimed under; the api refuses any call once the job has ended
 * or its lock moved on (`JOB_NOT_HELD`). How a report's refusal is handled: {@link HeldJob.report}.
 */
export interface ClaimedJob extends HeldJob {
  /**
   * The api's answer to the claim: the job as the api sealed it (what is reviewed, never the queued
   * copy), its repository token, and the model offer, previous review, PR text or reply thread.
   */
  readonly claim: ClaimResponse;
  /** One model call through the api's broker (the key stays there), with the job's budget left. */
  model(request: ChatRequest, signal?: AbortSignal): Promise<ModelResponse>;
  /** The model's `fetch_url`, performed by the api under the operator's allowlist. */
  fetch(url: string, signal?: AbortSignal): Promise<FetchResponse>;
  /** Chunk results of this job, kept by the api between its attempts (the AI review's `ChunkCache`). */
  readonly aiCache: {
    get(key: string): Promise<unknown>;
    put(key: string, result: unknown): Promise<void>;
  };
}
