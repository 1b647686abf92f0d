import { aiReportOff } from "@reviewbot/contracts/ai-report";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GITHUB_QUEUE, REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { REVIEW_JOB_OPTIONS } from "@reviewbot/queue/review-queue";
import { helperEntry } from "../support/review-repos.js";
import { waitForCompletedCheckRun, checkRunsOf } from "./check-runs.js";
import { startFleet, waitUntil, WORKER_CREDENTIALS, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, type HostedPull } from "./hosted-pull.js";

// docs/architecture.md, layer 4 (workers are untrusted clients of the api), attacked: a compromised
// worker host holds exactly the worker's Redis login and its credential for the api (worker-0's;
// the fleet's real worker is worker-0 too, and a second real worker, worker-1, runs beside it).
// With those it must get nothing beyond the jobs it is running, only until they end, and must not
// make the publisher touch anything no delivery named.
const PUBLIC = { repository: "octo/public", id: 9701 };
const PRIVATE = { repository: "octo/private", id: 9702 };
const ATTACKER = WORKER_CREDENTIALS[0] ?? "";

let fleet: Fleet;
let pull: HostedPull;
let slow: HostedPull;
let attacker: Redis;
let admin: Redis;

beforeAll(async () => {
  fleet = await startFleet({ repositories: { [PUBLIC.repository]: PUBLIC.id, [PRIVATE.repository]: PRIVATE.id }, workers: 2 });
  const roles = fleet.redis.roles;
  if (roles === null) throw new Error("no ACL roles");
  attacker = createRedisConnection(roles.worker.url, { name: "attacker", blocking: false, password: roles.worker.password });
  admin = new Redis(fleet.redis.url, { maxRetriesPerRequest: 1 });
  pull = hostPull(fleet, {
    ...PUBLIC,
    repositoryId: PUBLIC.id,
    number: 1,
    helpers: [helperEntry("lint", ["sh", "-c", "echo 'src/a.ts:1: real finding'"], { format: "errorformat" })],
    fork: (tree) => {
      tree.write("src/a.ts", "export const a = 1;\n");
    },
  });
  slow = hostPull(fleet, {
    ...PRIVATE,
    repositoryId: PRIVATE.id,
    number: 2,
    helpers: [helperEntry("slow", ["sh", "-c", "sleep 6; echo 'src/b.ts:1: slow finding'"], { format: "errorformat" })],
    fork: (tree) => {
      tree.write("src/b.ts", "export const b = 1;\n");
    },
  });
}, 240_000);

afterAll(async () => {
  attacker.disconnect();
  admin.disconnect();
  await (fleet as Fleet | undefined)?.stop();
});

async function post(path: "claim" | "report", body: unknown, credential = ATTACKER): Promise<{ status: number; code: unknown; message: unknown }> {
  const res = await fetch(`${fleet.apiUrl}/internal/jobs/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${credential}` },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
  return { status: res.status, code: json.error?.code, message: json.error?.message };
}

const report = {
  engine: "none",
  sandboxed: false,
  overlay: { source: "ref", failedClosed: false, commit: { from: "ref", ref: "main", sha: "a".repeat(40) }, ignoredPrChanges: [] },
  configErrors: [],
  helpers: [],
  findings: [],
  filtered: { mode: "added", dropped: 0 },
  errors: [],
  hunks: {},
  durationMs: 1,
  ai: aiReportOff(),
};

describe("the worker's Redis user", () => {
  it.each([
    ["FLUSHALL", ["flushall"]],
    ["FLUSHDB", ["flushdb"]],
    ["CONFIG", ["config", "get", "*"]],
    ["KEYS", ["keys", "*"]],
    ["SCAN", ["scan", "0"]],
    ["RANDOMKEY (key names: repositories, PRs, heads)", ["randomkey"]],
    ["DBSIZE", ["dbsize"]],
    ["CLIENT TRACKING (over RESP3 it pushes the names of keys the user may not read)", ["client", "tracking", "on", "bcast"]],
    ["CLIENT LIST", ["client", "list"]],
    ["OBJECT (a key's encoding and idle time)", ["object", "encoding", "bull:reviews:meta"]],
    ["SELECT (another database)", ["select", "1"]],
    ["a live-job record", ["hset", "reviewbot:broker:job:review.9701.1.x", "trigger", "pull_request"]],
    ["DEBUG", ["debug", "sleep", "0"]],
    ["MODULE", ["module", "list"]],
    ["ACL", ["acl", "list"]],
    ["SCRIPT FLUSH", ["script", "flush"]],
    ["CLIENT KILL", ["client", "kill", "id", "1"]],
    ["SHUTDOWN", ["shutdown", "nosave"]],
    ["MONITOR", ["monitor"]],
    ["a write to the publisher queue", ["lpush", "bull:github:wait", "forged"]],
    ["a read of the publisher queue", ["hgetall", "bull:github:1"]],
    ["the delivery ledger", ["set", "reviewbot:delivery:forged", "x"]],
    ["the token cache", ["get", "reviewbot:token-cache:x"]],
    ["the token vault", ["hgetall", "reviewbot:broker:tokens:x"]],
    ["a claim record", ["hset", "reviewbot:broker:claim:x", "worker", "worker-0"]],
    ["an outcome record", ["del", "reviewbot:outcome:x"]],
    ["a PR's review memory", ["get", "reviewbot:memory:9701:1"]],
    ["the fair share", ["srem", "reviewbot:installation:4711:jobs", "x"]],
    ["the installation slots", ["zrem", "reviewbot:broker:slots", "x"]],
    ["rolling a PR's head back", ["hset", "reviewbot:pr:9701.1", "head", "0".repeat(40)]],
    ["sending a cancel", ["publish", "reviewbot:cancel", "x"]],
    ["a script that writes the publisher queue", ["eval", "return redis.call('LPUSH', KEYS[1], 'x')", "1", "bull:github:wait"]],
    ["a script that reaches an undeclared key", ["eval", "return redis.call('GET', 'reviewbot:token-cache:x')", "0"]],
  ])("refuses %s (NOPERM), which the admin may do", async (_name, command) => {
    const [name = "", ...args] = command;
    // NOPERM, or its wording for scripts ("can't access"); DEBUG is also off server-wide by default.
    await expect(attacker.call(name, ...args)).rejects.toThrow(/NOPERM|no permissions|can't access|DEBUG command not allowed/);
  });

  it("is refused DEBUG by its ACL too, not only by the server's enable-debug-command default", async () => {
    expect(await admin.call("acl", "dryrun", "reviewbot-worker", "debug", "sleep", "0")).toMatch(/no permissions to run the 'debug' command/);
    expect(await admin.call("acl", "dryrun", "reviewbot-api", "debug", "sleep", "0")).toMatch(/no permissions/);
  });

  it("can do the worker's job: read the review queue, take its leases, read PR heads, listen for cancels (negative control)", async () => {
    // Who the attacker's connection is, asked of the admin (the worker's allowlist has no ACL WHOAMI).
    expect(String(await admin.call("client", "list"))).toMatch(/ name=reviewbot-attacker .* user=reviewbot-worker /);
    expect(await attacker.set("reviewbot:lease:9701.99", "x", "PX", 1000, "NX")).toBe("OK");
    expect(await attacker.hget("reviewbot:pr:9701.1", "head")).toBeNull();
    expect(await attacker.exists("bull:reviews:meta")).toBeGreaterThanOrEqual(0);
    const subscriber = attacker.duplicate();
    try {
      expect(await subscriber.subscribe("reviewbot:cancel")).toBe(1);
    } finally {
      subscriber.disconnect();
    }
    // And the admin may do what the worker may not.
    expect(await admin.lpush("bull:github:probe", "x")).toBe(1);
    await admin.del("bull:github:probe");
  });

  it("cannot hand the publisher a task through BullMQ either", async () => {
    const connection = attacker.duplicate({ maxRetriesPerRequest: null });
    const github = new Queue(GITHUB_QUEUE, { connection });
    try {
      await expect(github.add("completed", { kind: "completed" }, { jobId: "completed.forged" })).rejects.toThrow(/NOPERM|no permissions/);
    } finally {
      await github.close();
      connection.disconnect();
    }
  });
});

describe("the api acts only on what it decided itself", () => {
  it("reviews and publishes the real PR (negative control for everything below)", async () => {
    expect((await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"))).status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, pull.headSha, 120_000);
    expect(run.annotations.map((annotation) => annotation.message)).toEqual(["real finding"]);
  });

  it("a job the attacker adds to the review queue for a private repository is refused when a real worker claims it: no token, nothing published", async () => {
    const mintedBefore = fleet.github.minted.length;
    const real = (await fleet.reviews.getJob((await fleet.reviews.getJobs(["completed"]))[0]?.id ?? ""))?.data as Record<string, unknown>;
    const forgedId = `review.${PRIVATE.id}.2.forged-delivery`;
    const forged = {
      ...real,
      repositoryId: PRIVATE.id,
      repository: PRIVATE.repository,
      pullNumber: 2,
      headSha: slow.headSha,
      baseSha: slow.baseSha,
      deliveryId: "forged-delivery",
    };
    const queue = new Queue(REVIEW_QUEUE, { connection: attacker.duplicate({ maxRetriesPerRequest: null }) });
    try {
      await queue.add("review", forged, { ...REVIEW_JOB_OPTIONS, jobId: forgedId });
    } finally {
      await queue.close();
    }
    await waitUntil(async () => (await fleet.reviews.getJobState(forgedId)) === "failed", "the forged job to fail", 60_000);
    expect((await fleet.reviews.getJob(forgedId))?.failedReason).toMatch(/^JOB_NOT_HELD: the api refused: the job was not created by the api, or was altered/);
    expect(fleet.github.minted.slice(mintedBefore).filter((token) => token.repositoryIds?.includes(PRIVATE.id) === true)).toEqual([]);
    expect(checkRunsOf(fleet, slow.headSha)).toEqual([]);
    expect(fleet.api.logs()).toMatch(new RegExp(`"jobId":"${forgedId.replaceAll(".", "\\.")}".*"forged":true.*"msg":"worker request refused"`));
  });

  it("the attacker cannot take over a job another worker is running, nor report for it; after it ends its token is dead", async () => {
    expect((await fleet.deliver("pull_request", pullRequestEvent(slow, "opened"))).status).toBe(202);
    const active = await waitUntil(
      async () => (await fleet.reviews.getJobs(["active"])).find((job) => (job.data as { repositoryId?: number }).repositoryId === PRIVATE.id),
      "the slow review to start",
    );
    const jobId = active.id ?? "";
    // Everything Redis tells a worker: the job's lock token, readable with the worker's own login.
    // The api knows which worker claimed the job; the other worker's credential is the thief's.
    const claimed = await waitUntil(
      () =>
        fleet.api
          .logs()
          .split("\n")
          .find((line) => line.includes('"job claimed"') && line.includes(`"jobId":"${jobId}"`)),
      "the job to be claimed",
    );
    const lockToken = (await attacker.get(`bull:reviews:${jobId}:lock`)) ?? "";
    const holder = (JSON.parse(claimed) as { worker?: string }).worker;
    const thief = WORKER_CREDENTIALS.slice(0, 2).find((credential) => !credential.startsWith(`${holder ?? "?"}.`)) ?? "";
    expect(holder).toMatch(/^worker-[01]$/);
    const mintedBefore = fleet.github.minted.length;
    const stolen = await post("claim", { jobId, lockToken }, thief);
    expect([stolen.status, stolen.code, stolen.message]).toEqual([403, "JOB_NOT_HELD", "another worker claimed this job under this lock"]);
    expect(fleet.github.minted.length).toBe(mintedBefore);
    const forgedReport = await post("report", { jobId, lockToken, outcome: { kind: "completed", report } }, thief);
    expect([forgedReport.status, forgedReport.code]).toEqual([403, "JOB_NOT_HELD"]);
    const run = await waitForCompletedCheckRun(fleet, slow.headSha, 120_000);
    expect(run.annotations.map((annotation) => annotation.message)).toEqual(["slow finding"]);
    expect(checkRunsOf(fleet, slow.headSha)).toHaveLength(1);
    // The job is over: its lock token opens nothing, and its repository token was revoked.
    expect((await post("claim", { jobId, lockToken })).code).toBe("JOB_NOT_HELD");
    const tokens = fleet.github.minted.filter((token) => token.repositoryIds?.includes(PRIVATE.id) === true).map((token) => token.token);
    expect(tokens.length).toBeGreaterThan(0);
    await waitUntil(() => tokens.every((token) => fleet.github.state.revoked.includes(token)), "the job's tokens to be revoked", 15_000);
    for (const token of tokens) {
      const res = await fetch(`${fleet.github.url}/repos/${PRIVATE.repository}/pulls/2`, { headers: { authorization: `token ${token}` } });
      expect(res.status).toBe(401);
      const clone = await fetch(`${fleet.git.url}/${PRIVATE.repository}.git/info/refs?service=git-upload-pack`, {
        headers: { authorization: `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}` },
      });
      expect(clone.status).toBe(401);
    }
  });

  it("a task pushed onto the publisher queue by someone with full Redis access (no ACLs) is refused: no check run on a SHA no delivery named", async () => {
    const sha = "d".repeat(40);
    const review = {
      installationId: 4711,
      repositoryId: PRIVATE.id,
      repository: PRIVATE.repository,
      pullNumber: 2,
      headSha: sha,
      baseSha: slow.baseSha,
      baseRef: "main",
      deliveryId: "none",
      trigger: "pull_request",
    };
    const github = new Queue(GITHUB_QUEUE, { connection: admin.duplicate({ maxRetriesPerRequest: null }) });
    try {
      await github.add("completed", { kind: "completed", reviewJobId: "review.9702.2.none", review, report }, { jobId: "completed.review.9702.2.none" });
    } finally {
      await github.close();
    }
    await waitUntil(async () => (await fleet.tasks.getJobState("completed.review.9702.2.none")) === "failed", "the forged task to fail", 30_000);
    expect((await fleet.tasks.getJob("completed.review.9702.2.none"))?.failedReason).toMatch(/does not carry the api's seal/);
    expect(fleet.github.requests.filter((request) => JSON.stringify(request.body ?? "").includes(sha))).toEqual([]);
    expect(checkRunsOf(fleet, sha)).toEqual([]);
  });
});
