import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reviewJobId } from "@reviewbot/queue/review-queue";
import { eventually } from "../sandbox/cancel-fixture.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { helperEntry } from "../support/review-repos.js";
import { addReviewRepo, localJob, openWorkerStand, waitForState, type WorkerStand } from "../support/worker-fixture.js";

let stand: WorkerStand;

beforeAll(async () => {
  stand = await openWorkerStand("worker-shutdown");
}, 180_000);
afterAll(async () => {
  await stand.close();
});

describe("review worker shutdown", () => {
  it("SIGTERM: a review still running after the grace period is killed and handed back, and another worker takes it", async () => {
    const marker = `worker-term-${randomUUID()}`;
    const repo = addReviewRepo(stand, {
      helpers: [helperEntry("sleeper", ["sh", "-c", `sleep 60; : ${marker}`])],
      fork: (tree) => {
        tree.write("a.py", "x = 1\n");
      },
    });
    const job = localJob(repo.name, repo);
    const id = reviewJobId(job);
    const first = await stand.start({ REVIEWBOT_SHUTDOWN_GRACE_MS: "1000" });
    await stand.addRaw(job, id);
    expect(await eventually(async () => (await hostProcessesMarked(marker)).length > 0, 60_000)).toBe(true);
    const signalled = performance.now();
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    // The grace period, then the sandbox is killed: well before the helper's own 60 s.
    expect(performance.now() - signalled).toBeLessThan(10_000);
    expect(await hostProcessesMarked(marker)).toEqual([]);
    const handedBack = await stand.reviews.getJob(id);
    expect([await handedBack?.getState(), handedBack?.attemptsMade, handedBack?.failedReason]).toEqual(["delayed", 0, undefined]);
    expect(first.records().some((line) => line.msg === "review handed back at shutdown")).toBe(true);
    expect(await stand.github.getJob(`failed.${id}`)).toBeUndefined();
    // Nothing holds the PR's lease any more: a second worker starts the review at once.
    const second = await stand.start();
    expect(await eventually(async () => (await hostProcessesMarked(marker)).length > 0, 60_000)).toBe(true);
    expect(await waitForState(stand.reviews, id, ["active"], 5_000)).toBe("active");
    await second.stop("SIGKILL");
  });

  it("SIGTERM with nothing running exits 0 at once", async () => {
    const worker = await stand.start();
    const signalled = performance.now();
    worker.child.kill("SIGTERM");
    // Seen under load (exit 1): a SIGTERM while BullMQ still opened its blocking connection threw
    // "Connection is closed" uncaught; the message shows the whole output, a stack trace included.
    expect(await worker.exited, worker.logs().slice(-3000)).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(5_000);
    expect(worker.records().map((line) => line.msg)).toContain("worker stopped");
  });
});
