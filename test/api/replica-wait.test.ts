import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryKey } from "@reviewbot/api/webhooks/delivery-ledger";
import { REDIS_USERS } from "@reviewbot/queue/redis-acl";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { startLocalRedis } from "../support/local-redis.js";
import { startRedisReplica, type RedisReplica } from "../support/redis-replica.js";
import { sendWebhook } from "../support/webhook-client.js";
import { SECRET, startApi, type ApiHarness } from "./api-harness.js";
import { deliveryId, pullRequestPayload } from "./webhook-payloads.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

// Issue 25, part 3a: a 202 means a replica holds the delivery's ledger record and job.
const WAIT_MS = 150;
let api: ApiHarness;
let replica: RedisReplica;
let hook: string;

beforeAll(async () => {
  api = await startApi({ replicas: { minReplicas: null, waitMs: WAIT_MS, refreshMs: 0 } });
  replica = await startRedisReplica(api.redisServer?.port ?? 0);
  hook = `${api.url}/api/github/webhooks`;
});

afterAll(async () => {
  await replica.stop();
  await api.close();
});

async function deliver(id: string, number: number): Promise<{ status: number; body: string }> {
  return sendWebhook(hook, { event: "pull_request", deliveryId: id, body: pullRequestPayload({ number, repositoryId: 300 }), secret: SECRET });
}

async function jobsOf(number: number): Promise<number> {
  return (await api.reviews.getJobs(["waiting", "delayed", "prioritized", "active"])).filter((job) => job.id?.startsWith(`review.300.${String(number)}.`))
    .length;
}

describe("answering a delivery after its writes reach a replica (WAIT)", () => {
  it("answers 202 only when the replica already holds the ledger record", async () => {
    const id = deliveryId();
    const res = await deliver(id, 1);
    expect(res.status).toBe(202);
    // Read on the replica right after the answer: WAIT returned, so the write is there.
    expect(await replica.command("EXISTS", deliveryKey(DEFAULT_KEYSPACE, id))).toBe("1");
  });

  it("answers 503 when the replica does not acknowledge in time, and a redelivery is still reviewed once", async () => {
    replica.pause();
    const id = deliveryId();
    const started = Date.now();
    const refused = await deliver(id, 2).finally(() => {
      replica.resume();
    });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: "QUEUE_UNAVAILABLE" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS);
    // The primary kept what it wrote: GitHub's redelivery (same guid) is a duplicate, one job.
    const again = await deliver(id, 2);
    expect(again.status).toBe(202);
    expect(await jobsOf(2)).toBe(1);
    expect(await replica.command("EXISTS", deliveryKey(DEFAULT_KEYSPACE, id))).toBe("1");
  });

  it("refuses when more replicas are required than acknowledge (the count is WAIT's, not assumed)", async () => {
    const strict = await startApi({ redisUrl: api.redisUrl, replicas: { minReplicas: 2, waitMs: WAIT_MS } });
    try {
      const res = await sendWebhook(`${strict.url}/api/github/webhooks`, {
        event: "pull_request",
        deliveryId: deliveryId(),
        body: pullRequestPayload({ number: 3, repositoryId: 300 }),
        secret: SECRET,
      });
      expect(res.status).toBe(503);
    } finally {
      await strict.close();
    }
  });
});

describe("the api's ACL user", () => {
  it("may run WAIT and read INFO replication", async () => {
    const server = await startLocalRedis({ acl: true });
    const login = server.roles?.api;
    const redis = createRedisConnection(login?.url ?? "", { name: "acl-probe", blocking: false, password: login?.password });
    try {
      expect(login?.url).toContain(REDIS_USERS.api);
      expect(await redis.wait(0, 10)).toBe(0);
      expect(await redis.info("replication")).toContain("connected_slaves:0");
      // Negative control: the worker's user may not (its ACL names neither).
      const worker = createRedisConnection(server.roles?.worker.url ?? "", {
        name: "acl-probe-worker",
        blocking: false,
        password: server.roles?.worker.password,
      });
      await expect(worker.wait(0, 10)).rejects.toThrow(/NOPERM/);
      worker.disconnect();
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
