import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import type { RedisTarget } from "@reviewbot/queue/redis-target";
import { hookDeliveriesOf, type HookDeliveries } from "../support/github-stand-in-hook-deliveries.js";
import { redisAnswer } from "../support/redis-probe.js";
import type { RedisSentinelSet } from "../support/redis-sentinel.js";
import { SECRET, startFleet, waitUntil, type Fleet } from "./fleet-harness.js";
import { hostFindingPulls, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { checkRunsOf, waitForCompletedCheckRun } from "./check-runs.js";

// Issue 25, part 1: the fleet reaches Redis through Sentinels and follows a failover without a restart.
const NAMES = ["before", "running", "during", "after"] as const;
type Name = (typeof NAMES)[number];
const repository = (name: Name): string => `octo/sentinel-${name}`;
const repositoryId = (name: Name): number => 9600 + NAMES.indexOf(name);

let fleet: Fleet;
let sentinel: RedisSentinelSet;
let pulls: ReadonlyMap<Name, HostedPull> = new Map();
let hooks: HookDeliveries;
const pullOf = (name: Name): HostedPull => pulls.get(name) ?? (undefined as never);

beforeAll(async () => {
  // The api's redelivery sweep runs every second against the stand-in's GitHub deliveries.
  fleet = await startFleet({
    repositories: Object.fromEntries(NAMES.map((name) => [repository(name), repositoryId(name)])),
    redis: "sentinel",
    apiEnv: { REVIEWBOT_REDELIVERY_INTERVAL_MS: "1000" },
  });
  sentinel = fleet.sentinel ?? (undefined as never);
  hooks = hookDeliveriesOf(fleet.github.state);
  hooks.target = { url: `${fleet.apiUrl}/api/github/webhooks`, secret: SECRET };
  pulls = hostFindingPulls(fleet, NAMES, { repository, repositoryId, firstNumber: 40, slow: "running", file: "src/s.ts" });
}, 180_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

/** Delivers until accepted: 503 (Redis between primaries) is what GitHub's redelivery answers to. */
async function deliverUntilAccepted(name: Name, statuses: number[]): Promise<void> {
  const deliveryId = randomUUID();
  await waitUntil(
    async () => {
      const { status } = await fleet.deliver("pull_request", pullRequestEvent(pullOf(name), "opened"), deliveryId).catch(() => ({ status: 0 }));
      statuses.push(status);
      return status === 202;
    },
    `a delivery of ${name} to be accepted`,
    30_000,
  );
}

/** Whether a connection as `target` gets ready first, or an error (what the apps log). */
async function firstEvent(target: RedisTarget): Promise<string> {
  const connection = createRedisConnection(target, { name: "sentinel-probe", blocking: false });
  try {
    return await new Promise<string>((resolve) => {
      connection.once("ready", () => {
        resolve("ready");
      });
      connection.once("error", (err: Error) => {
        resolve(`error: ${err.message}`);
      });
    });
  } finally {
    connection.disconnect();
  }
}

describe("Redis behind Sentinel", () => {
  it("reviews through the primary the Sentinel names, follows a failover without a restart, and publishes every accepted delivery once", async () => {
    const pids = [fleet.api, ...fleet.workers].map((process) => process.child.pid);
    const statuses = new Map<Name, number[]>(NAMES.map((name) => [name, []]));
    const statusesOf = (name: Name): number[] => statuses.get(name) ?? [];
    const firstPrimary = await sentinel.primaryPort();
    expect(firstPrimary).toBe(sentinel.primary.port);

    await deliverUntilAccepted("before", statusesOf("before"));
    await waitForCompletedCheckRun(fleet, pullOf("before").headSha, 90_000);
    expect(statusesOf("before")).toEqual([202]);

    await deliverUntilAccepted("running", statusesOf("running"));
    await waitUntil(
      async () => (await fleet.reviews.getJobs(["active"])).some((job) => (job.progress as { stage?: string } | undefined)?.stage === "helpers"),
      "the running review's helper to start",
    );
    // The primary dies (SIGKILL) while a review runs; the Sentinel promotes the replica.
    await sentinel.primary.stop();
    // GitHub delivers once while there is no primary; only the api's sweep brings a failed attempt back.
    const during = await hooks.deliver("pull_request", pullRequestEvent(pullOf("during"), "opened"));
    await waitUntil(async () => (await sentinel.primaryPort()) === sentinel.replica.port, "the Sentinel to promote the replica", 30_000);
    await deliverUntilAccepted("after", statusesOf("after"));

    for (const name of NAMES) {
      const run = await waitForCompletedCheckRun(fleet, pullOf(name).headSha, 90_000);
      expect(run.annotations.map((annotation) => annotation.message)).toEqual([`finding of ${name}`]);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const name of NAMES) expect(checkRunsOf(fleet, pullOf(name).headSha), name).toHaveLength(1);
    // The attempt during the gap failed (503, or no connection), and the sweep's redelivery was
    // accepted, once; an attempt the api accepted after all needs none.
    await hooks.settled();
    const attempts = hooks.attempts.filter(({ guid }) => guid === during.guid).map(({ redelivery, statusCode }) => [redelivery, statusCode]);
    if (during.statusCode === 202) expect(attempts).toEqual([[false, 202]]);
    else
      expect([
        [false, during.statusCode],
        [true, 202],
      ]).toEqual(attempts);
    expect([0, 202, 503]).toContain(during.statusCode);
    // Every answer was an acceptance or a refusal GitHub redelivers: nothing was accepted and lost.
    for (const name of NAMES) for (const status of statusesOf(name)) expect([0, 202, 503], name).toContain(status);

    // Same processes, ready again on the new primary.
    expect([fleet.api, ...fleet.workers].map((process) => process.child.pid)).toEqual(pids);
    for (const process of [fleet.api, ...fleet.workers]) expect(process.child.exitCode, process.name).toBeNull();
    await waitUntil(async () => (await fetch(`${fleet.apiUrl}/readyz`)).status === 200, "the api to be ready");
    expect(await sentinel.replica.command("ROLE")).toMatch(/^master/);
  });

  it("keeps each role's ACL user on the promoted primary: every node loads the same users", async () => {
    await waitUntil(async () => (await sentinel.primaryPort()) === sentinel.replica.port, "the replica to be the primary", 30_000);
    expect(await redisAnswer(sentinel.target("worker"), ["SET", "reviewbot:broker:slots", "x"])).toMatch(/NOPERM/);
    // Negative control: the worker's user reaches its own keys there.
    expect(await redisAnswer(sentinel.target("worker"), ["SET", `reviewbot:lease:${randomUUID()}`, "x", "PX", "1000"])).toBe("ok: OK");
  });

  it("asks the Sentinels with their own password: a wrong one reaches nothing, and the error says why", async () => {
    expect(await firstEvent({ ...sentinel.target("api"), sentinelPassword: "wrong" })).toMatch(/^error: .*(WRONGPASS|invalid username-password)/);
    // Negative control: the right one does.
    expect(await firstEvent(sentinel.target("api"))).toBe("ready");
  });
});
