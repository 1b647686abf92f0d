import type { Queue } from "bullmq";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { dismissFindings } from "@reviewbot/github/dismissed-findings";
import { readReviewMemory } from "@reviewbot/github/review-memory";
import { enqueueAnswer } from "@reviewbot/queue/enqueue-answer";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import type { CommandTask, ResolveTask } from "@reviewbot/contracts/github-task";
import { isPaused } from "@reviewbot/queue/pause-state";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { reviewJobId } from "@reviewbot/queue/review-queue";
import { enqueueGitHubTask } from "@reviewbot/queue/github-task-queue";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { claimDelivery, recordDelivery } from "./delivery-ledger.js";
import type { ReplicaQuorum } from "./replica-quorum.js";
import { withDeadline } from "../http-kit/with-deadline.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface DeliveryQueues {
  readonly reviews: Queue;
  readonly github: Queue;
  /** A fail-fast (non-blocking) connection for the ledger and the PR state. */
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  /** Seals the jobs and tasks written, so that the api can tell them from a worker's. */
  readonly seal: QueueSeal;
  /** Holds the answer until the writes are on a replica (WAIT); null: a primary's word is enough. */
  readonly replicas: ReplicaQuorum | null;
}

/**
 * `accepted`: enqueued (a review, or a resolve task when only GitHub can tell the PR's head);
 * `duplicate`: this delivery id was accepted before; `replayed`: its signed body came before under
 * another delivery id; `stale`: its head is older than the PR's recorded head, nothing enqueued;
 * `not_ours`: a reply in a thread that no comment of ours opened, nothing enqueued; `paused`: a
 * push to a PR the `pause` command paused, nothing enqueued; `dismissed`: a trusted person's
 * dismissal reply, its thread's finding recorded as dismissed on the PR.
 */
export type Accepted =
  | { readonly status: "accepted"; readonly jobId: string; readonly removed: string | null; readonly cancelled: string | null }
  | { readonly status: "duplicate"; readonly jobId: string | null }
  | { readonly status: "replayed" }
  | { readonly status: "stale"; readonly recordedHead: string }
  | { readonly status: "not_ours" }
  | { readonly status: "paused" }
  | { readonly status: "dismissed" };

type Work =
  | { readonly kind: "review"; readonly job: ReviewJob }
  | { readonly kind: "resolve"; readonly task: ResolveTask }
  | { readonly kind: "answer"; readonly job: ReviewJob }
  | { readonly kind: "command"; readonly task: CommandTask }
  | { readonly kind: "dismiss"; readonly job: ReviewJob };

/**
 * Accepts a delivery exactly once: a delivery id in the ledger is a duplicate, a body in the ledger
 * under another id a replay; otherwise it is enqueued first (its job id comes from the delivery id,
 * so concurrent copies are one job) and recorded second. `bodyDigest` is the SHA-256 of the signed
 * raw body. Then, with replicas, WAIT until a replica holds it (a duplicate too: its first copy's
 * writes may not be there yet). Everything is Redis, bounded by `deadlineMs`: past it (or on a Redis
 * error, or replicas short) QUEUE_UNAVAILABLE, and the delivery counts as not accepted, so GitHub
 * shows it failed and the redelivery sweep brings it back (apps/api/src/redelivery/).
 */
export async function acceptDelivery(queues: DeliveryQueues, work: Work, bodyDigest: string, deadlineMs: number): Promise<Accepted> {
  const deliveryId = work.kind === "resolve" || work.kind === "command" ? work.task.deliveryId : work.job.deliveryId;
  return withDeadline(acceptReplicated(queues, work, deliveryId, bodyDigest), deadlineMs, "QUEUE_UNAVAILABLE", "Redis did not confirm the delivery in time");
}

async function acceptReplicated(queues: DeliveryQueues, work: Work, deliveryId: string, bodyDigest: string): Promise<Accepted> {
  const accepted = await accept(queues, work, deliveryId, bodyDigest);
  await queues.replicas?.confirm();
  return accepted;
}

async function accept(queues: DeliveryQueues, work: Work, deliveryId: string, bodyDigest: string): Promise<Accepted> {
  // A paused PR's pushes are not reviewed (docs/github-app.md, "Commands"), but their check run
  // says so; commands and re-runs still review. Asked with the claim, in the same round trip.
  const pausable = work.kind === "review" && work.job.trigger === "pull_request";
  const [claim, paused] = await Promise.all([
    claimDelivery(queues.redis, queues.keys, deliveryId, bodyDigest),
    pausable && isPaused(queues.redis, queues.keys, work.job.repositoryId, work.job.pullNumber),
  ]);
  if (claim === "duplicate") return { status: "duplicate", jobId: null };
  if (claim === "replayed") return { status: "replayed" };
  if (work.kind === "answer") return answer(queues, work.job);
  if (work.kind === "command") return command(queues, work.task);
  if (work.kind === "review" && paused) {
    // The task's id is the job's that was not enqueued: a redelivery makes no second one.
    await enqueueGitHubTask(queues.github, queues.seal, { kind: "paused", reviewJobId: reviewJobId(work.job), review: work.job });
    return (await recordDelivery(queues.redis, queues.keys, deliveryId, "paused")) ? { status: "paused" } : { status: "duplicate", jobId: null };
  }
  if (work.kind === "dismiss") return dismiss(queues, work.job);
  const outcome =
    work.kind === "review" ? await enqueueReview(queues.reviews, queues.redis, queues.keys, queues.seal, work.job) : await resolve(queues, work.task);
  if (outcome.stale !== null && !outcome.stale.tie) {
    const first = await recordDelivery(queues.redis, queues.keys, deliveryId, "stale");
    return first ? { status: "stale", recordedHead: outcome.stale.recordedHead } : { status: "duplicate", jobId: null };
  }
  // Two heads with the same `updated_at` (two pushes within GitHub's one-second clock, or a replay of
  // the other one): the payload cannot say which is newer, GitHub's API can.
  const accepted = outcome.stale === null ? outcome : await resolve(queues, resolveTaskOf(work));
  const first = await recordDelivery(queues.redis, queues.keys, deliveryId, accepted.jobId);
  return first
    ? { status: "accepted", jobId: accepted.jobId, removed: accepted.removed, cancelled: accepted.cancelled }
    : { status: "duplicate", jobId: accepted.jobId };
}

/**
 * A reply is answered only in a thread one of our comments opened, by the api's own record of the
 * comments it posted on the PR (never by the thread's text, which anyone could write).
 */
async function answer(queues: DeliveryQueues, job: ReviewJob): Promise<Accepted> {
  const memory = await readReviewMemory(queues.redis, queues.keys, job.repositoryId, job.pullNumber);
  if (job.reply === null || !memory.comments.includes(job.reply.threadId)) {
    return (await recordDelivery(queues.redis, queues.keys, job.deliveryId, "not_ours")) ? { status: "not_ours" } : { status: "duplicate", jobId: null };
  }
  const { jobId } = await enqueueAnswer(queues.reviews, queues.redis, queues.keys, queues.seal, job);
  const first = await recordDelivery(queues.redis, queues.keys, job.deliveryId, jobId);
  return first ? { status: "accepted", jobId, removed: null, cancelled: null } : { status: "duplicate", jobId };
}

/**
 * A command goes to the publisher, which reacts and carries it out; one given in a review thread
 * counts only in a thread one of our comments opened (by the api's record, as for an answer).
 */
async function command(queues: DeliveryQueues, task: CommandTask): Promise<Accepted> {
  if (task.comment.on === "thread") {
    const memory = await readReviewMemory(queues.redis, queues.keys, task.repositoryId, task.pullNumber);
    if (!memory.comments.includes(task.comment.threadId)) {
      return (await recordDelivery(queues.redis, queues.keys, task.deliveryId, "not_ours")) ? { status: "not_ours" } : { status: "duplicate", jobId: null };
    }
  }
  const jobId = await enqueueGitHubTask(queues.github, queues.seal, task);
  const first = await recordDelivery(queues.redis, queues.keys, task.deliveryId, jobId);
  return first ? { status: "accepted", jobId, removed: null, cancelled: null } : { status: "duplicate", jobId };
}

/**
 * A dismissal reply: the finding whose comment opened the thread, by the api's own record of what
 * it posted (never the thread's text), is dismissed on the PR at once; nothing is enqueued, the
 * model does not answer it. Dismissing twice is dismissing once.
 */
async function dismiss(queues: DeliveryQueues, job: ReviewJob): Promise<Accepted> {
  const memory = await readReviewMemory(queues.redis, queues.keys, job.repositoryId, job.pullNumber);
  const fingerprint = Object.entries(memory.posted).find(([, id]) => id === job.reply?.threadId)?.[0];
  if (fingerprint === undefined) {
    return (await recordDelivery(queues.redis, queues.keys, job.deliveryId, "not_ours")) ? { status: "not_ours" } : { status: "duplicate", jobId: null };
  }
  await dismissFindings(queues.redis, queues.keys, job.repositoryId, job.pullNumber, [fingerprint]);
  return (await recordDelivery(queues.redis, queues.keys, job.deliveryId, "dismissed")) ? { status: "dismissed" } : { status: "duplicate", jobId: null };
}

async function resolve(queues: DeliveryQueues, task: ResolveTask): Promise<{ jobId: string; removed: null; cancelled: null; stale: null }> {
  return { jobId: await enqueueGitHubTask(queues.github, queues.seal, task), removed: null, cancelled: null, stale: null };
}

function resolveTaskOf(work: Exclude<Work, { kind: "answer" | "command" | "dismiss" }>): ResolveTask {
  if (work.kind === "resolve") return work.task;
  const { installationId, repositoryId, repository, pullNumber, deliveryId, trigger } = work.job;
  return { kind: "resolve", installationId, repositoryId, repository, pullNumber, deliveryId, trigger };
}
