import { randomUUID } from "node:crypto";
import { Queue, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribeCancels } from "@reviewbot/queue/cancel-channel";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import { PullRequestLease } from "@reviewbot/queue/pull-request-lease";
import { isSuperseded } from "@reviewbot/queue/pull-request-state";
import type { ReviewJob } from "@reviewbot/queue/review-job";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";

let redis: LocalRedis;
let connection: Redis;

beforeAll(async () => {
  redis = await startLocalRedis();
  connection = new Redis(redis.port, "127.0.0.1", { maxRetriesPerRequest: null });
});

afterAll(async () => {
  connection.disconnect();
  await redis.stop();
});

function job(overrides: Partial<ReviewJob>): ReviewJob {
  return {
    installationId: 1,
    repositoryId: 100,
    repository: "octo/app",
    pullNumber: 5,
    headSha: "1".repeat(40),
    baseSha: "2".repeat(40),
    baseRef: "main",
    deliveryId: randomUUID(),
    trigger: "pull_request",
    ...overrides,
  };
}

function freshQueue(): Queue {
  return new Queue(`reviews-${randomUUID()}`, { connection });
}

describe("one live review per PR", () => {
  it("removes the waiting job of an older head and marks it superseded", async () => {
    const queue = freshQueue();
    const older = job({ headSha: "a".repeat(40) });
    const newer = job({ headSha: "b".repeat(40) });
    const first = await enqueueReview(queue, connection, older);
    const second = await enqueueReview(queue, connection, newer);
    expect(second).toMatchObject({ removed: first.jobId, cancelled: null });
    expect(await queue.getJob(first.jobId)).toBeUndefined();
    expect(await queue.getJobCountByTypes("waiting", "prioritized")).toBe(1);
    expect(await isSuperseded(connection, older)).toBe(true);
    expect(await isSuperseded(connection, newer)).toBe(false);
    await queue.obliterate({ force: true });
    await queue.close();
  });

  it("cancels the run of an older head on whichever host holds the PR, and leaves a same-head run alone", async () => {
    const queue = freshQueue();
    const pr = { repositoryId: 101 };
    const first = await enqueueReview(queue, connection, job({ ...pr, headSha: "c".repeat(40) }));
    // A worker takes the job and its PR lease, as apps/worker does before running.
    const worker = new Worker(queue.name, null, { connection, autorun: false });
    expect((await worker.getNextJob(randomUUID()))?.id).toBe(first.jobId);
    const lease = new PullRequestLease(connection, { ...pr, pullNumber: 5 }, first.jobId, 5000);
    expect(await lease.acquire()).toBe(true);
    const subscriber = new Redis(redis.port, "127.0.0.1");
    const cancelled: string[] = [];
    const unsubscribe = await subscribeCancels(subscriber, (id) => cancelled.push(id));

    const sameHead = await enqueueReview(queue, connection, job({ ...pr, headSha: "c".repeat(40) }));
    expect(sameHead).toMatchObject({ removed: null, cancelled: null });
    const newerHead = await enqueueReview(queue, connection, job({ ...pr, headSha: "d".repeat(40) }));
    expect(newerHead).toMatchObject({ removed: sameHead.jobId, cancelled: first.jobId });
    await expect.poll(() => cancelled).toEqual([first.jobId]);

    await lease.release();
    await unsubscribe();
    subscriber.disconnect();
    await worker.close(true);
    await queue.obliterate({ force: true });
    await queue.close();
  });
});

describe("PullRequestLease", () => {
  const pr = { repositoryId: 200, pullNumber: 1 };

  it("lets one job of a PR hold it at a time and frees it on release", async () => {
    const a = new PullRequestLease(connection, pr, "job-a", 2000);
    const b = new PullRequestLease(connection, pr, "job-b", 2000);
    expect(await a.acquire()).toBe(true);
    expect(await b.acquire()).toBe(false);
    await b.release(); // not the holder: must not free a's lease
    expect(await new PullRequestLease(connection, pr, "job-c", 2000).acquire()).toBe(false);
    await a.release();
    expect(await b.acquire()).toBe(true);
    await b.release();
  });

  it("is renewed while held, and frees itself when the holder stops renewing (a killed worker)", async () => {
    const holder = new PullRequestLease(connection, pr, "job-d", 300);
    expect(await holder.acquire()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(await new PullRequestLease(connection, pr, "job-e", 300).acquire()).toBe(false);
    await holder.release();
    // A holder that died leaves its key to expire: nobody renews it.
    const key = `reviewbot:lease:${pr.repositoryId}.${pr.pullNumber}`;
    await connection.set(key, "dead-job", "PX", 200);
    const next = new PullRequestLease(connection, pr, "job-f", 300);
    expect(await next.acquire()).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await next.acquire()).toBe(true);
    await next.release();
  });
});
