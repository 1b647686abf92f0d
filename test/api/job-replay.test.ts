import { Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readReviewJob } from "@reviewbot/queue/queued-review-job";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { generateTestAppKey, startGitHubStandIn, type GitHubStandIn } from "../support/github-stand-in.js";
import { startLocalRedis, type LocalRedis } from "../support/local-redis.js";
import { sendWebhook } from "../support/webhook-client.js";
import { SEAL, SECRET, startMintingApi, type ApiHarness } from "./api-harness.js";
import { EMPTY_REPORT } from "./published-reports.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";

// A compromised worker host replaying the api's own sealed jobs (docs/architecture.md, layer 4:
// workers are untrusted clients of the api). The attacker holds exactly the worker's Redis login
// (the production ACL users) and a worker credential: it saves a job's hash while it can read it,
// and puts it back later, active and locked under a token of its choosing. The seal still holds on
// such a copy; the api's own record of which jobs are live, the seal's age and one token per lock
// are what refuse it.
const APP_ID = 4343;
const INSTALLATION_ID = 78;
const REPOSITORY_ID = 9101;

let redis: LocalRedis;
let api: ApiHarness;
let standIn: GitHubStandIn;
let attacker: Redis;
let consumerConnection: Redis;
let consumer: Worker;
let credential: string;

beforeAll(async () => {
  const key = generateTestAppKey();
  standIn = await startGitHubStandIn({ appId: APP_ID, publicKey: key.publicKey, repositories: { "octo/private": REPOSITORY_ID } });
  redis = await startLocalRedis({ acl: true });
  const roles = redis.roles;
  if (roles === null) throw new Error("no ACL roles");
  ({ api } = await startMintingApi(
    {
      redisUrl: redis.url,
      workers: 1,
    },
    { url: standIn.url, appId: APP_ID, privateKey: key.privateKey },
  ));
  credential = api.workerCredentials[0] ?? "";
  attacker = createRedisConnection(roles.worker.url, { name: "attacker", blocking: false, password: roles.worker.password });
  consumerConnection = createRedisConnection(roles.worker.url, { name: "consumer", blocking: true, password: roles.worker.password });
  consumer = new Worker(REVIEW_QUEUE, null, { connection: consumerConnection, autorun: false });
}, 60_000);

afterAll(async () => {
  await consumer.close();
  consumerConnection.disconnect();
  attacker.disconnect();
  await standIn.close();
  await api.close();
  await redis.stop();
});

/** A review job enqueued the way the api enqueues one: a signed webhook. */
async function enqueue(pullNumber: number, head: string, action = "opened"): Promise<string> {
  const body = pullRequestPayload({
    action,
    installationId: INSTALLATION_ID,
    repositoryId: REPOSITORY_ID,
    repository: "octo/private",
    number: pullNumber,
    head,
  });
  const res = await sendWebhook(`${api.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
  return (JSON.parse(res.body) as { jobId: string }).jobId;
}

/** Takes the next job as a worker does, with a lock token of our choosing. */
async function take(lockToken: string): Promise<Job> {
  const job: Job | undefined = await consumer.getNextJob(lockToken);
  if (job === undefined) throw new Error("no job to take");
  return job;
}

async function post(path: "claim" | "report", body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${api.url}/internal/jobs/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const claim = (jobId: string, lockToken: string) => post("claim", { jobId, lockToken });
const message = (res: { body: Record<string, unknown> }): unknown => (res.body.error as { message?: unknown } | undefined)?.message;

/** What the attacker keeps of a job while it can read it: the job's whole hash. */
async function save(jobId: string): Promise<Record<string, string>> {
  return attacker.hgetall(`bull:reviews:${jobId}`);
}

/** Puts a saved job back with the worker's Redis user: its hash, active, locked under `lockToken`. */
async function putBack(jobId: string, saved: Record<string, string>, lockToken: string): Promise<void> {
  await attacker.hset(`bull:reviews:${jobId}`, saved);
  await attacker.lpush("bull:reviews:active", jobId);
  await attacker.set(`bull:reviews:${jobId}:lock`, lockToken);
}

async function startedTask(jobId: string): Promise<boolean> {
  return (await api.github.getJob(`started.${jobId}`)) !== undefined;
}

describe("a sealed job the api no longer acts for stays refused", () => {
  it("a job removed by supersession while it waited, put back: no token, no check run started; the PR's live job claims (negative control)", async () => {
    const removed = await enqueue(1, headSha(101));
    const saved = await save(removed);
    const live = await enqueue(1, headSha(102), "synchronize");
    expect(await api.reviews.getJob(removed)).toBeUndefined();
    await putBack(removed, saved, "replay-1");
    const minted = standIn.minted.length;
    const res = await claim(removed, "replay-1");
    expect([res.status, message(res)]).toEqual([403, expect.stringMatching(/^the api has no live record of this job/)]);
    expect(standIn.minted.length).toBe(minted);
    expect(await startedTask(removed)).toBe(false);
    await api.redis.lrem("bull:reviews:active", 0, removed);

    await take("honest-1");
    const honest = await claim(live, "honest-1");
    expect(honest.status).toBe(200);
    expect(honest.body.token).toEqual(expect.any(String));
    expect(await startedTask(live)).toBe(true);
  });

  it("a job whose outcome was recorded, put back after its outcome key expired, is refused", async () => {
    const jobId = await enqueue(2, headSha(201));
    const held = await take("honest-2");
    const saved = await save(jobId);
    expect((await claim(jobId, "honest-2")).status).toBe(200);
    expect((await post("report", { jobId, lockToken: "honest-2", outcome: { kind: "completed", report: EMPTY_REPORT } })).body).toEqual({ status: "recorded" });
    await held.moveToCompleted("done", "honest-2", false);
    await held.remove();
    // Fourteen days later the outcome key expires; the admin's DEL stands in for the expiry.
    expect(await api.redis.del(`reviewbot:outcome:${jobId}`)).toBe(1);
    await putBack(jobId, saved, "replay-2");
    const minted = standIn.minted.length;
    const res = await claim(jobId, "replay-2");
    expect([res.status, message(res)]).toEqual([403, expect.stringMatching(/^the api has no live record of this job/)]);
    expect(standIn.minted.length).toBe(minted);
    await api.redis.lrem("bull:reviews:active", 0, jobId);
  });

  it("a removed job for the PR's current head, put back after the honest review was handed to the publisher: no second check run; a re-review the api decided gets its own (negative control)", async () => {
    const head = headSha(301);
    const first = await enqueue(3, head);
    const saved = await save(first);
    // The same head again (a reopen): the api's own decision to review it again supersedes the waiting job.
    const second = await enqueue(3, head, "reopened");
    expect(await api.reviews.getJob(first)).toBeUndefined();
    await take("honest-3");
    expect((await claim(second, "honest-3")).status).toBe(200);
    expect((await post("report", { jobId: second, lockToken: "honest-3", outcome: { kind: "completed", report: EMPTY_REPORT } })).status).toBe(200);
    expect(await api.github.getJob(`completed.${second}`)).toBeDefined();

    await putBack(first, saved, "replay-3");
    const minted = standIn.minted.length;
    const res = await claim(first, "replay-3");
    expect(res.status).toBe(403);
    expect(await startedTask(first)).toBe(false);
    expect(standIn.minted.length).toBe(minted);
    expect((await post("report", { jobId: first, lockToken: "replay-3", outcome: { kind: "completed", report: EMPTY_REPORT } })).status).toBe(403);
    expect(await api.github.getJob(`completed.${first}`)).toBeUndefined();
    await api.redis.lrem("bull:reviews:active", 0, first);

    const again = await enqueue(3, head, "reopened");
    const rerun = await take("honest-3b");
    expect(rerun.id).toBe(again);
    expect((await claim(again, "honest-3b")).status).toBe(200);
    expect(await startedTask(again)).toBe(true);
  });

  it("a job sealed longer ago than any job lives is refused even while the api's record of it lasts; one sealed an hour ago claims (negative control)", async () => {
    for (const [ageMs, status] of [
      [3 * 24 * 3600_000, 403],
      [3600_000, 200],
    ] as const) {
      const jobId = await enqueue(4, headSha(400 + status));
      const held = await take(`honest-4-${status}`);
      // Data as the api would have sealed it `ageMs` ago (the test holds the api's seal key).
      await api.redis.hset(`bull:reviews:${jobId}`, "data", JSON.stringify(SEAL.seal(jobId, readReviewJob(held.data), Date.now() - ageMs)));
      const res = await claim(jobId, `honest-4-${status}`);
      expect([ageMs, res.status]).toEqual([ageMs, status]);
      if (status === 403) expect(message(res)).toMatch(/sealed longer ago than any job lives/);
      await held.moveToFailed(new Error("done"), `honest-4-${status}`, false);
    }
  });
});

describe("one token per job and lock", () => {
  it("a claim repeated under the same lock gets the same token and deadline back: nothing minted, the revocation deadline unchanged", async () => {
    const jobId = await enqueue(5, headSha(501));
    const held = await take("lock-5");
    const minted = standIn.minted.length;
    const first = await claim(jobId, "lock-5");
    expect(first.status).toBe(200);
    const deadline = await api.redis.zscore("reviewbot:broker:live", jobId);
    for (let i = 0; i < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const again = await claim(jobId, "lock-5");
      expect([again.status, again.body.token, again.body.expiresAt]).toEqual([200, first.body.token, first.body.expiresAt]);
    }
    expect(standIn.minted.length).toBe(minted + 1);
    expect(await api.redis.zscore("reviewbot:broker:live", jobId)).toBe(deadline);

    // Once revoked (its deadline, the sweeper), the same lock gets no token at all, never a new one.
    await api.vault?.revokeJob(jobId);
    const revoked = await claim(jobId, "lock-5");
    expect([revoked.status, revoked.body.token, revoked.body.expiresAt]).toEqual([200, null, null]);
    expect(standIn.minted.length).toBe(minted + 1);

    // Negative control: a legitimate retry under a new lock gets a new token.
    await held.moveToDelayed(Date.now(), "lock-5");
    await new Promise((resolve) => setTimeout(resolve, 50));
    await take("lock-5b");
    const retry = await claim(jobId, "lock-5b");
    expect(retry.status).toBe(200);
    expect(retry.body.token).toEqual(expect.any(String));
    expect(retry.body.token).not.toBe(first.body.token);
    expect(standIn.minted.length).toBe(minted + 2);
  });
});

describe("worker-written job data is measured before it is read", () => {
  it("refuses a 20 MB job hash without reading it: the api does not grow; reading it as BullMQ does grows the process (negative control)", async () => {
    const jobId = await enqueue(6, headSha(601));
    await take("lock-6");
    const huge = JSON.stringify("x".repeat(20 * 1024 * 1024));
    await attacker.hset(`bull:reviews:${jobId}`, "data", huge);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 8; i++) {
      const res = await claim(jobId, "lock-6");
      expect([res.status, message(res)]).toEqual([403, expect.stringMatching(/^the queued job's data is 20971522 bytes, more than any job the api writes/)]);
    }
    const grown = process.memoryUsage().rss - before;
    expect(grown).toBeLessThan(40 * 1024 * 1024);
    // The control: the same hash read through BullMQ's job parser (what the api did before).
    const held: unknown[] = [];
    for (let i = 0; i < 8; i++) held.push(await api.reviews.getJob(jobId));
    expect(process.memoryUsage().rss - before).toBeGreaterThan(grown + 100 * 1024 * 1024);
    expect(held).toHaveLength(8);
  });
});
