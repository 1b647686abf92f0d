import type { Queue } from "bullmq";
import type { RequestHandler } from "express";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import type { PullRequestText } from "@reviewbot/github/describe-pull-request";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { ClaimRequest, type AiOffer, type ClaimResponse, type ReplyThread } from "@reviewbot/contracts/worker-protocol";
import type { InstallationSlots } from "./installation-slots.js";
import { returnTokenRight, takeTokenRight } from "./job-authority.js";
import { witnessOffer } from "./job-witness.js";
import type { TokenVault } from "./token-vault.js";
import { workerRoute, type WorkerRouteDeps } from "./worker-route.js";

/** Mints an installation token restricted to one repository, read-only (packages/github). */
export type TokenMinter = (installationId: number, repositoryId: number) => Promise<{ token: string; expiresAt: string }>;

export interface ClaimDeps extends WorkerRouteDeps {
  readonly github: Queue;
  readonly seal: QueueSeal;
  /** Null without a GitHub App (the local sink): claims carry no token. */
  readonly tokens: { readonly mint: TokenMinter; readonly vault: TokenVault; readonly ttlMs: number } | null;
  /** The per-installation concurrency cap. */
  readonly slots: InstallationSlots;
  readonly scrubber: SecretScrubber;
  /** What the model broker offers every job (fetch_url only with allowlisted hosts); null: AI review off. */
  readonly ai: (Omit<AiOffer, "fetchUrl"> & { readonly fetchHosts: boolean }) | null;
  /** The PR's title and description for the model; asked only when the AI review is on. */
  readonly describe: ((job: ReviewJob) => Promise<PullRequestText | null>) | null;
  /** The thread a job answers (the GitHub App, with the api's record of our comments); null without an App. */
  readonly thread: ((job: ReviewJob) => Promise<ReplyThread | null>) | null;
}

const ROUTE = { name: "claim", schema: ClaimRequest, maxBytes: 4096, purpose: "claim", noStore: true } as const;

/**
 * `POST /internal/jobs/claim`: a worker holding a job (its lock token) gets the job as the api
 * sealed it, and a read token for that one repository that dies with the job (revoked when the
 * outcome is recorded, the lock moves on, or after `ttlMs`); the PR's check run goes in progress.
 * One token per job and lock: the claim under a lock repeated (a worker whose answer was lost)
 * gets the same token and deadline back from the vault while it lives, and none after it was
 * revoked; it never mints another or moves the deadline, so repeating claims keeps no token alive.
 * A claim beyond its installation's concurrency cap is refused with `INSTALLATION_BUSY` (429 and
 * `Retry-After`) before anything is minted: the worker hands the job back and tries again later.
 * A job that answers a reply gets the thread instead, and has no check run to start.
 */
export function claimHandler(deps: ClaimDeps): RequestHandler {
  return workerRoute(deps, ROUTE, async ({ body, job, replacedLock, fresh, fields, response }) => {
    // A new attempt under a new lock: whatever the previous attempt held dies now.
    if (replacedLock !== null) await deps.tokens?.vault.revokeJob(body.jobId);
    // Only a claim that passed the checks above counts against its installation's cap.
    await deps.slots.acquire(job.installationId, body.jobId, fresh);
    const ai = aiOffer(deps.ai, job.repositoryPrivate);
    // An answer is about its thread: the PR's description is read for a review only.
    const pullRequest = ai === null || deps.describe === null || job.reply !== null ? null : await deps.describe(job);
    const previous = ai === null ? null : await previousReview(deps, job);
    await witnessOffer(deps.redis, deps.keys, body.jobId, previous);
    const thread = ai === null || job.reply === null || deps.thread === null ? null : await deps.thread(job);
    const answer: ClaimResponse = { job, token: null, expiresAt: null, ai, pullRequest, previous, thread };
    if (deps.tokens !== null) {
      const issued = (await takeTokenRight(deps.redis, deps.keys, body.jobId, body.lockToken))
        ? await mintToken(deps, deps.tokens, job, body)
        : await deps.tokens.vault.issued(body.jobId, body.lockToken);
      if (issued !== null) Object.assign(answer, { token: issued.token, expiresAt: new Date(issued.deadline).toISOString() });
    }
    // A retry of the AI review alone belongs to its review's check run, which is already published.
    if (job.reply === null && job.mode !== "ai-only")
      await enqueueGitHubTask(deps.github, deps.seal, { kind: "started", reviewJobId: body.jobId, review: job });
    deps.logger.info(
      { ...fields, repositoryId: job.repositoryId, pr: job.pullNumber, token: answer.token !== null, expiresAt: answer.expiresAt },
      "job claimed",
    );
    response.status(200).json(answer);
  });
}

/**
 * The one token of the job under this lock: minted, registered with the scrubber and kept in the
 * vault with its deadline. A mint that fails gives the lock's right to a token back, so the
 * worker's retry of the claim can mint.
 */
async function mintToken(
  deps: ClaimDeps,
  tokens: NonNullable<ClaimDeps["tokens"]>,
  job: ReviewJob,
  call: { readonly jobId: string; readonly lockToken: string },
): Promise<{ token: string; deadline: number }> {
  let minted: { token: string; expiresAt: string };
  try {
    minted = await tokens.mint(job.installationId, job.repositoryId);
  } catch (err) {
    await returnTokenRight(deps.redis, deps.keys, call.jobId, call.lockToken);
    throw err;
  }
  const expires = Date.parse(minted.expiresAt);
  deps.scrubber.register(minted.token, Number.isNaN(expires) ? undefined : expires);
  const deadline = Math.min(Number.isNaN(expires) ? Number.POSITIVE_INFINITY : expires, Date.now() + tokens.ttlMs);
  await tokens.vault.keep(call.jobId, call.lockToken, minted.token, deadline);
  return { token: minted.token, deadline };
}

/**
 * The api's own record of its last completed AI review of the job's PR (never the worker's word
 * or a comment's), for a push's review or the `review` command (the job's `since`): `/review`, `full
 * review` or a re-run asks for a full review. It comes
 * with the broker's witness of the reviews it rests on: the worker starts from it only when that
 * shows the model saw every patch they covered.
 */
async function previousReview(deps: ClaimDeps, job: ReviewJob): Promise<ClaimResponse["previous"]> {
  if ((job.since ?? (job.trigger === "pull_request" ? "last-review" : "whole")) === "whole") return null;
  const memory = await readReviewMemory(deps.redis, deps.keys, job.repositoryId, job.pullNumber);
  return memory.reviewedHead === null ? null : { headSha: memory.reviewedHead, findings: memory.ai.map((entry) => entry.finding), witness: memory.witness };
}

/** fetch_url is offered only with allowlisted hosts and never for a private repository (the broker refuses it too). */
function aiOffer(ai: ClaimDeps["ai"], repositoryPrivate: boolean): AiOffer | null {
  if (ai === null) return null;
  const { fetchHosts, ...offer } = ai;
  return { ...offer, fetchUrl: fetchHosts && !repositoryPrivate };
}
