import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { requestCancel, subscribeCancels } from "@reviewbot/queue/cancel-channel";
import { joinShare, newShareSweepCursor, sweepShares } from "@reviewbot/queue/fair-share";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { redisKeyspace } from "@reviewbot/queue/redis-keyspace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalRedis } from "../support/local-redis.js";
import type { RedisClusterSet } from "../support/redis-cluster.js";
import { redisAnswer } from "../support/redis-probe.js";
import { helperEntry } from "../support/review-repos.js";
import { waitForCompletedCheckRun } from "./check-runs.js";
import { startFleet, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent } from "./hosted-pull.js";

// Issue 25, part 2: the whole fleet on a three-primary Redis Cluster, its keys under one hash tag.
const REPOSITORY = "octo/cluster";
const REPOSITORY_ID = 9401;

let fleet: Fleet;
let cluster: RedisClusterSet;

beforeAll(async () => {
  // A delivery is answered 202 only once the replica of the keys' primary holds it (WAIT 1).
  fleet = await startFleet({
    repositories: { [REPOSITORY]: REPOSITORY_ID },
    redisPrefix: "{rb}",
    redis: "cluster",
    apiEnv: { REVIEWBOT_REDIS_MIN_REPLICAS: "1" },
  });
  cluster = fleet.cluster ?? (undefined as never);
}, 180_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

/** How many keys `node` holds, asked as its admin. */
async function keyCount(node: LocalRedis | null): Promise<number> {
  return Number(await node?.command("DBSIZE"));
}

/** A plain connection to one node as `role`'s ACL user (every node loads the same users). */
function loginTo(node: LocalRedis, role: "api" | "worker"): Redis {
  const login = (node.roles ?? (undefined as never))[role];
  return createRedisConnection(login.url, { name: `cluster-${role}`, blocking: false, password: login.password });
}

describe("Redis Cluster", () => {
  it("reviews a PR end to end, every key on the primary holding the hash tag's slot and its replica", async () => {
    const pull = hostPull(fleet, {
      repository: REPOSITORY,
      repositoryId: REPOSITORY_ID,
      number: 5,
      helpers: [helperEntry("one", ["sh", "-c", "echo 'src/c.ts:1: one finding'"], { format: "errorformat" })],
      fork: (tree) => {
        tree.write("src/c.ts", "export const c = 1;\n");
      },
    });
    const deliveryId = randomUUID();
    expect((await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"), deliveryId)).status).toBe(202);
    expect((await waitForCompletedCheckRun(fleet, pull.headSha)).output.summary).toMatch(/\| one \| findings \| 1 \|/);
    await expect.poll(() => fleet.github.state.reviews.size, { timeout: 30_000 }).toBe(1);
    // The same delivery again is a duplicate: the ledger works across the Cluster connection.
    expect(await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"), deliveryId)).toEqual({
      status: 202,
      body: JSON.stringify({ status: "duplicate" }),
    });

    expect(await keyCount(cluster.holder)).toBeGreaterThan(0);
    for (const other of cluster.primaries.filter((primary) => primary !== cluster.holder)) expect(await keyCount(other)).toBe(0);
    await expect.poll(() => keyCount(cluster.replica), { timeout: 10_000 }).toBe(await keyCount(cluster.holder));
    expect(fleet.allLogs()).not.toMatch(/CROSSSLOT|MOVED|NOPERM/);
  }, 240_000);

  it("waits on the holder's own connection: WAIT 1 on any other primary is never confirmed", async () => {
    const waitOn = async (primary: LocalRedis): Promise<number> => {
      const node = loginTo(primary, "api");
      try {
        await node.set("{rb}:probe", "1").catch(() => undefined); // MOVED on the others: no write to wait for
        return await node.wait(1, 200);
      } finally {
        node.disconnect();
      }
    };
    expect(await waitOn(cluster.holder)).toBe(1);
    for (const other of cluster.primaries.filter((primary) => primary !== cluster.holder)) expect(await waitOn(other)).toBe(0);
  });

  it("keeps each role's ACL user on every node: the worker is refused the api's keys (negative control: its lease)", async () => {
    expect(await redisAnswer(cluster.target("worker"), ["SET", "{rb}:broker:slots", "x"])).toMatch(/NOPERM/);
    expect(await redisAnswer(cluster.target("worker"), ["SET", "{rb}:delivery:x", "x"])).toMatch(/NOPERM/);
    expect(await redisAnswer(cluster.target("worker"), ["SET", `{rb}:lease:${randomUUID()}`, "x", "PX", "1000"])).toBe("ok: OK");
    for (const primary of cluster.primaries) {
      const node = loginTo(primary, "worker");
      try {
        await expect(node.call("ACL", "WHOAMI")).rejects.toThrow(/NOPERM/);
        expect(await node.call("CLUSTER", "SLOTS")).toHaveLength(3);
      } finally {
        node.disconnect();
      }
    }
  });

  it("sweeps the fair-share sets on the primary that holds them: each sweep from a fresh cursor releases a gone job's entry", async () => {
    // A keyspace of its own under the same hash tag: the same slot, out of the api's own sweeps' way.
    // A SCAN sent to whichever primary ioredis picks would find the set one time in three: six in a row
    // would pass by chance once in 729.
    const keys = redisKeyspace("{rb}sweep");
    const admin = createRedisConnection(cluster.target("admin"), { name: "cluster-sweep", blocking: false });
    const queue = new Queue(REVIEW_QUEUE, { connection: admin, prefix: keys.bull });
    try {
      for (let round = 0; round < 6; round++) {
        await joinShare(admin, keys, 7, `gone-${round}`);
        expect(await sweepShares(admin, keys, queue, newShareSweepCursor(), 100)).toEqual({ checked: 1, released: 1 });
      }
      // Negative control: a job still waiting keeps its entry.
      await queue.add("review", {}, { jobId: "waiting" });
      await joinShare(admin, keys, 7, "waiting");
      expect(await sweepShares(admin, keys, queue, newShareSweepCursor(), 100)).toEqual({ checked: 1, released: 0 });
    } finally {
      await queue.close();
      admin.disconnect();
    }
  });

  it("carries the api's cancel requests to a worker's subscription, whichever nodes the two reach; the worker may not publish one", async () => {
    const keys = redisKeyspace("{rb}");
    const [api, worker, subscriber] = [
      createRedisConnection(cluster.target("api"), { name: "cluster-cancel-api", blocking: false }),
      createRedisConnection(cluster.target("worker"), { name: "cluster-cancel-worker", blocking: false }),
      createRedisConnection(cluster.target("worker"), { name: "cluster-cancels", blocking: true }),
    ];
    const heard: string[] = [];
    const unsubscribe = await subscribeCancels(subscriber, keys, (jobId) => heard.push(jobId));
    try {
      // A Cluster sends each PUBLISH to any primary and its bus passes it to every node (in no set order).
      const sent = Array.from({ length: 6 }, (_, index) => `cancel-${index}`);
      for (const jobId of sent) await requestCancel(api, keys, jobId);
      await expect.poll(() => heard.toSorted(), { timeout: 10_000 }).toEqual(sent);
      // Negative control: a worker cannot ask other workers to cancel (its user has no PUBLISH).
      await expect(requestCancel(worker, keys, "forged")).rejects.toThrow(/NOPERM/);
    } finally {
      await unsubscribe();
      for (const connection of [api, worker, subscriber]) connection.disconnect();
    }
  });
  it("is ready only while the primary holding the keyspace answers: paused, the api's and the worker's /readyz are 503 within the deadline", async () => {
    const workerPort = (JSON.parse((await fleet.workers[0]?.waitForLog(/"health server listening"/)) ?? "{}") as { port: number }).port;
    const probe = async (): Promise<{ api: number; workerRedis: boolean }> => {
      const [api, worker] = await Promise.all([fetch(`${fleet.apiUrl}/readyz`), fetch(`http://127.0.0.1:${workerPort}/readyz`)]);
      return { api: api.status, workerRedis: ((await worker.json()) as { redis: boolean }).redis };
    };
    // Negative control: with every primary answering, both are ready.
    expect(await probe()).toEqual({ api: 200, workerRedis: true });
    // A keyless PING goes to any primary: six probes at once would find another primary answering
    // (two in three each) were they not sent to the holder. The pause outlasts their 1 s deadline
    // and stays under the nodes' 5 s timeout, so no failover follows; a probe still waiting when it
    // ends would see the holder answer.
    cluster.holder.pause();
    const resumed = setTimeout(() => {
      cluster.holder.resume();
    }, 2500);
    try {
      const paused = await Promise.all(Array.from({ length: 6 }, probe));
      expect(paused).toEqual(Array.from({ length: 6 }, () => ({ api: 503, workerRedis: false })));
    } finally {
      clearTimeout(resumed);
      cluster.holder.resume();
    }
    await expect.poll(probe, { timeout: 10_000 }).toEqual({ api: 200, workerRedis: true });
  });
});
