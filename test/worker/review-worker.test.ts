import { networkInterfaces } from "node:os";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestCancel } from "@reviewbot/queue/cancel-channel";
import { enqueueReview } from "@reviewbot/queue/enqueue-review";
import type { CompletedTask, GitHubTask } from "@reviewbot/contracts/github-task";
import { recordLatestHead } from "@reviewbot/queue/pull-request-state";
import { reviewJobId } from "@reviewbot/queue/review-queue";
import type { ReviewJob } from "@reviewbot/contracts/review-job";
import { eventually } from "../sandbox/cancel-fixture.js";
import { logRecords } from "../support/app-process.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { helperEntry } from "../support/review-repos.js";
import { addReviewRepo, addSampleRepo, localJob, openWorkerStand, waitForState, waitForTask, type WorkerStand } from "../support/worker-fixture.js";
import type { WorkerProcess } from "../support/worker-process.js";
import { DEFAULT_KEYSPACE } from "@reviewbot/queue/redis-keyspace";

let stand: WorkerStand;
let worker: WorkerProcess;

beforeAll(async () => {
  stand = await openWorkerStand("worker");
  worker = await stand.start({ REVIEWBOT_CONCURRENCY: "2" });
}, 180_000);
afterAll(async () => {
  await stand.close();
});

async function taskIds(): Promise<string[]> {
  const jobs = await stand.github.getJobs(["waiting", "prioritized", "delayed", "active", "completed", "failed"]);
  return jobs.map((job) => job.id ?? "");
}

describe("review worker (local source, bwrap)", () => {
  it("reviews a job from the queue and hands the publisher a completed task with the findings", async () => {
    const repo = addSampleRepo(stand);
    const { jobId } = await enqueueReview(stand.reviews, stand.connection, DEFAULT_KEYSPACE, stand.seal, localJob(repo.name, repo));
    expect((await waitForTask(stand.github, `started.${jobId}`)).kind).toBe("started");
    const task = (await waitForTask(stand.github, `completed.${jobId}`)) as CompletedTask;
    expect(task.reviewJobId).toBe(jobId);
    const where = task.report.findings.map((f) => `${f.path}:${String(f.line)} ${f.rule ?? ""} ${f.severity}`).sort();
    expect(where).toEqual(["app/calc.py:14 E711 warning", "app/calc.py:15 F821 error", "web/greet.ts:10 no-var error", "web/greet.ts:12 no-debugger error"]);
    // `.ai/` from the head of the job's default branch, never the base a PR chose.
    expect(task.report).toMatchObject({
      engine: "bwrap",
      sandboxed: true,
      overlay: { source: "ref", commit: { from: "ref", ref: "refs/heads/main", sha: repo.baseSha } },
    });
    expect(task.report.helpers.map((h) => [h.name, h.outcome])).toEqual([
      ["flake8", "findings"],
      ["eslint", "findings"],
    ]);
    expect(Object.keys(task.report.hunks).sort()).toEqual(["app/calc.py", "web/greet.ts"]);
    expect(await waitForState(stand.reviews, jobId, ["completed"])).toBe("completed");
    // The job's share of its installation is released once it is done.
    expect(await stand.connection.sismember("reviewbot:installation:1:jobs", jobId)).toBe(0);
  });

  it("fails an invalid payload with JOB_INVALID and never runs it", async () => {
    const id = await stand.addRaw({ ...localJob("nothing", { baseSha: "0".repeat(40), headSha: "1".repeat(40) }), repository: "../../etc" });
    expect(await waitForState(stand.reviews, id, ["failed"])).toBe("failed");
    const job = await stand.reviews.getJob(id);
    expect(job?.failedReason).toMatch(/^JOB_INVALID: review job repository: must be owner\/name/);
    expect(job?.attemptsMade).toBe(1);
    expect((await taskIds()).filter((task) => task.endsWith(id))).toEqual([]);
    // Logged once, where the failure was handled (BullMQ's failed event used to log it again).
    const linesOf = () => logRecords(worker.logs()).filter((line) => line.jobId === id);
    expect(await eventually(() => Promise.resolve(linesOf().length > 0), 5000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(linesOf().map((line) => line.msg)).toEqual(["review job invalid"]);
  });

  it("does not run a job whose PR has a newer head", async () => {
    const repo = addReviewRepo(stand, {
      helpers: [helperEntry("lint", ["true"])],
      fork: (tree) => {
        tree.write("a.py", "x = 1\n");
      },
    });
    const job = localJob(repo.name, repo);
    await recordLatestHead(stand.connection, DEFAULT_KEYSPACE, { ...job, headSha: "f".repeat(40) }, "review.newer");
    const id = await stand.addRaw(job, reviewJobId(job));
    expect(await waitForState(stand.reviews, id, ["completed", "failed"])).toBe("completed");
    expect((await stand.reviews.getJob(id))?.returnvalue).toEqual({ outcome: "superseded" });
    expect((await taskIds()).filter((task) => task.endsWith(id))).toEqual([]);
  });

  it("never runs two jobs of one PR at once", async () => {
    const repo = addReviewRepo(stand, {
      helpers: [helperEntry("slow", ["sh", "-c", "sleep 2; echo 'a.py:1: slow'"], { format: "errorformat" })],
      fork: (tree) => {
        tree.write("a.py", "x = 1\n");
      },
    });
    const first = localJob(repo.name, repo);
    const second: ReviewJob = { ...first, deliveryId: randomUUID() };
    const ids = [await stand.addRaw(first, reviewJobId(first)), await stand.addRaw(second, reviewJobId(second))];
    const spans: [number, number][] = [];
    for (const id of ids) {
      await waitForTask(stand.github, `completed.${id}`);
      const started = await stand.github.getJob(`started.${id}`);
      const completed = await stand.github.getJob(`completed.${id}`);
      spans.push([started?.timestamp ?? 0, completed?.timestamp ?? 0]);
    }
    spans.sort((a, b) => a[0] - b[0]);
    const [a, b] = spans;
    // The second review started only after the first one published.
    expect(b?.[0]).toBeGreaterThanOrEqual(a?.[1] ?? Infinity);
  });

  it("a cancel request aborts a running review, kills its sandbox and publishes REVIEW_CANCELLED", async () => {
    const marker = `worker-cancel-${randomUUID()}`;
    const repo = addReviewRepo(stand, {
      helpers: [helperEntry("sleeper", ["sh", "-c", `sleep 60; : ${marker}`])],
      fork: (tree) => {
        tree.write("a.py", "x = 1\n");
      },
    });
    const job = localJob(repo.name, repo);
    const id = await stand.addRaw(job, reviewJobId(job));
    expect(await eventually(async () => (await hostProcessesMarked(marker)).length > 0, 60_000)).toBe(true);
    await requestCancel(stand.connection, DEFAULT_KEYSPACE, id);
    const task = (await waitForTask(stand.github, `failed.${id}`, 10_000)) as Extract<GitHubTask, { kind: "failed" }>;
    expect(task).toMatchObject({ kind: "failed", code: "REVIEW_CANCELLED", reviewJobId: id });
    expect(await waitForState(stand.reviews, id, ["completed"], 10_000)).toBe("completed");
    expect((await stand.reviews.getJob(id))?.returnvalue).toEqual({ outcome: "cancelled" });
    expect(await hostProcessesMarked(marker)).toEqual([]);
    expect(await stand.github.getJob(`completed.${id}`)).toBeUndefined();
  });

  it("serves health, readiness and metrics", async () => {
    const base = `http://127.0.0.1:${worker.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { redis: true, sandbox: true }]);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^reviewbot_worker_jobs_total\{outcome="completed"\} [1-9]/m);
    expect(metrics).toMatch(/^reviewbot_worker_jobs_total\{outcome="invalid"\} 1$/m);
    expect(metrics).toMatch(/^reviewbot_sandbox_runs_total\{engine="bwrap",outcome="cancelled"\} 1$/m);
    expect(metrics).toMatch(/^reviewbot_review_stage_duration_seconds_count\{stage="helpers"\} [1-9]/m);
  });

  it("serves them on loopback only by default: another address of the host is refused", async () => {
    const external = Object.values(networkInterfaces())
      .flat()
      .find((address) => address !== undefined && !address.internal && address.family === "IPv4");
    if (external === undefined) throw new Error("this test needs a non-loopback IPv4 address on the host");
    await expect(fetch(`http://${external.address}:${worker.port}/metrics`)).rejects.toThrow();
    // Negative control: the same server answers on loopback.
    expect((await fetch(`http://127.0.0.1:${worker.port}/healthz`)).status).toBe(200);
  });
});
