import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTokenSweeper } from "@reviewbot/api/broker/token-sweeper";
import { createLogger } from "@reviewbot/core/logger";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// Fair-share entries (reviewbot:installation:<id>:jobs) of jobs that ended without a report: the
// api's sweeper releases them, so a crashed or stalled job does not lower its
// installation's priority for ever.
const INSTALLATION_ID = 801;
const SHARE_KEY = `reviewbot:installation:${INSTALLATION_ID}:jobs`;

let api: ApiHarness;
const connections: Redis[] = [];
const workers: Worker[] = [];

beforeAll(async () => {
  api = await startApi({ workers: 1 });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close(true)));
  for (const connection of connections) connection.disconnect();
  await api.close();
});

function consumer(options: { lockDuration?: number; stalledInterval?: number; maxStalledCount?: number } = {}): Worker {
  const connection = createRedisConnection(api.redisUrl, { name: "test-consumer", blocking: true });
  connections.push(connection);
  const worker = new Worker(REVIEW_QUEUE, null, { connection, autorun: false, ...options });
  workers.push(worker);
  return worker;
}

async function enqueue(pullNumber: number): Promise<string> {
  const body = pullRequestPayload({
    installationId: INSTALLATION_ID,
    repositoryId: 8801,
    repository: "octo/shares",
    number: pullNumber,
    head: headSha(pullNumber),
  });
  const res = await sendWebhook(`${api.url}/api/github/webhooks`, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET });
  return (JSON.parse(res.body) as { jobId: string }).jobId;
}

async function take(worker: Worker, lockToken: string, jobId: string): Promise<Job> {
  const job: Job | undefined = await worker.getNextJob(lockToken);
  if (job?.id !== jobId) throw new Error(`took ${job?.id ?? "nothing"}, not ${jobId}`);
  return job;
}

async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("fair-share entries of jobs that ended without a report", () => {
  it("are released by the sweeper when the job stalled, failed, completed or is gone; live and waiting jobs keep theirs", async () => {
    // One job at a time: each is the only waiting one when it is taken.
    const stalled = await enqueue(1);
    const stalling = consumer({ lockDuration: 500 });
    await take(stalling, "lock-stalled", stalled);
    // Its worker died for good: nobody renews the lock, another worker's stall check finds it
    // stalled once more than allowed (maxStalledCount 0), and the next worker to fetch it fails it.
    const checker = consumer({ stalledInterval: 300, maxStalledCount: 0 });
    void checker.startStalledCheckTimer();
    await eventually(async () => (await api.reviews.getJobState(stalled)) === "waiting", 15_000);
    await checker.close();
    const regular = consumer();
    expect(await regular.getNextJob("lock-next")).toBeUndefined();
    expect((await api.reviews.getJob(stalled))?.failedReason).toBe("job stalled more than allowable limit");

    const failed = await enqueue(2);
    await (await take(regular, "lock-failed", failed)).moveToFailed(new UnrecoverableError("JOB_NOT_HELD: refused"), "lock-failed", false);
    const completed = await enqueue(3);
    await (await take(regular, "lock-completed", completed)).moveToCompleted({ outcome: "superseded" }, "lock-completed", false);
    const live = await enqueue(4);
    await take(regular, "lock-live", live);
    const gone = await enqueue(5);
    await (await api.reviews.getJob(gone))?.remove();
    const waiting = await enqueue(6);

    expect((await api.redis.smembers(SHARE_KEY)).sort()).toEqual([stalled, failed, completed, live, gone, waiting].sort());
    expect(await api.reviews.getJobState(stalled)).toBe("failed");
    const sweeper = startTokenSweeper({
      vault: null,
      redis: api.redis,
      keys: DEFAULT_KEYSPACE,
      reviews: api.reviews,
      logger: createLogger({ level: "silent", scrubber: api.scrubber }),
      intervalMs: 3_600_000,
    });
    try {
      expect(await sweeper.sweep()).toEqual({ revoked: 0, slots: 0, shares: 4 });
      // Negative control: a second sweep finds nothing more to release.
      expect(await sweeper.sweep()).toEqual({ revoked: 0, slots: 0, shares: 0 });
    } finally {
      sweeper.close();
    }
    expect((await api.redis.smembers(SHARE_KEY)).sort()).toEqual([live, waiting].sort());
  });
});
