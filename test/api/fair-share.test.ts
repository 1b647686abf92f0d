import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, headSha, pullRequestPayload } from "./webhook-payloads.js";

let api: ApiHarness;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

describe("fair share across installations", () => {
  it("serves a small installation's PRs among the first jobs while a large one has a backlog", async () => {
    const hook = `${api.url}/api/github/webhooks`;
    for (let pr = 1; pr <= 30; pr++) {
      const body = pullRequestPayload({ installationId: 1, repositoryId: 1001, repository: "big/mono", number: pr, head: headSha(pr) });
      expect((await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET })).status).toBe(202);
    }
    for (let pr = 1; pr <= 2; pr++) {
      const body = pullRequestPayload({ installationId: 2, repositoryId: 2001, repository: "small/app", number: pr, head: headSha(100 + pr) });
      expect((await sendWebhook(hook, { event: "pull_request", deliveryId: deliveryId(), body, secret: SECRET })).status).toBe(202);
    }
    // One consumer taking jobs one at a time, in the order the queue hands them out.
    const connection = createRedisConnection(api.redisUrl, { name: "test-consumer", blocking: true });
    const consumer = new Worker(REVIEW_QUEUE, null, { connection, autorun: false });
    const order: number[] = [];
    try {
      for (let taken = 0; taken < 32; taken++) {
        const job = await consumer.getNextJob("consumer-token");
        if (job === undefined) break;
        order.push((job.data as ReviewJob).installationId);
        await job.moveToCompleted("done", "consumer-token", false);
      }
    } finally {
      await consumer.close();
      connection.disconnect();
    }
    expect(order).toHaveLength(32);
    const smallPositions = order.flatMap((installation, index) => (installation === 2 ? [index] : []));
    expect(smallPositions).toHaveLength(2);
    expect(Math.max(...smallPositions)).toBeLessThan(4);
  });
});
