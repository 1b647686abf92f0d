import { randomUUID } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import { parseOperatorPolicy } from "@reviewbot/policy/operator-policy";
import { reviewPullRequest } from "@reviewbot/review/pipeline/review-pull-request";
import { forkRequest, jobEntries, mirrorJobRefs, openCache } from "../support/clone-cache-harness.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { watchCommandLines } from "../support/process-watch.js";
import { REVIEW_ENGINES, REVIEW_OPERATOR, silentLogger, type OpenedReviewEngine } from "../support/review-fixture.js";
import { createReviewRepo, helperEntry } from "../support/review-repos.js";
import { reachableTempDir } from "../support/temp-dirs.js";
import { eventually } from "../sandbox/cancel-fixture.js";

/** One helper at a time: the second must never start once the review is cancelled. */
const OPERATOR = parseOperatorPolicy({ ...REVIEW_OPERATOR, limits: { ...REVIEW_OPERATOR.limits, concurrency: 1 } });

/** A helper whose shell carries `marker` on its command line, so the host can see it run. */
function sleeper(name: string, marker: string): Record<string, unknown> {
  return helperEntry(name, ["sh", "-c", `sleep 60; : ${marker}`]);
}

describe.each(REVIEW_ENGINES)("review pipeline: cancellation ($name)", (kind) => {
  let root = "";
  let cacheRoot = "";
  let cache: CloneCache | undefined;
  let opened: OpenedReviewEngine | undefined;
  beforeAll(async () => {
    root = await reachableTempDir("review-cancel");
    cacheRoot = await reachableTempDir(`review-cancel-cache-${kind.name}`);
    cache = await openCache(cacheRoot);
    opened = await kind.open(Object.values(OPERATOR.images));
  }, 180_000);
  afterAll(async () => {
    try {
      await opened?.close();
    } finally {
      await rm(root, { recursive: true, force: true });
      await rm(cacheRoot, { recursive: true, force: true });
    }
  });

  /** Starts a review of a fresh repository; the caller aborts `controller`. */
  function startReview(options: { helpers: Record<string, unknown>[]; contextScript?: string }, signal: AbortSignal): Promise<unknown> {
    if (cache === undefined || opened === undefined) throw new Error("the suite is not open");
    const upstream = createReviewRepo(join(root, randomUUID()), {
      ...options,
      fork: (tree) => {
        tree.write("src/new.py", "x = 1\n");
      },
    });
    const request = { ...forkRequest(upstream, { label: `cancel-${randomUUID().slice(0, 8)}` }), filterMode: "added" as const, signal };
    return reviewPullRequest(request, { cache, engine: opened.engine, operator: OPERATOR, logger: silentLogger(), secrets: [] });
  }

  async function expectCheckoutReleased(): Promise<void> {
    expect(await jobEntries(cacheRoot)).toEqual([]);
    const mirrors = (await readdir(join(cacheRoot, "mirrors"))).filter((name) => name.endsWith(".git"));
    for (const mirror of mirrors) expect(mirrorJobRefs(join(cacheRoot, "mirrors", mirror), join(cacheRoot, "home"))).toEqual([]);
  }

  it("aborted while a helper runs: kills it, starts no further helper, releases the checkout and rejects", async () => {
    const [first, second] = [`first-${randomUUID()}`, `second-${randomUUID()}`];
    const watch = watchCommandLines(10);
    const controller = new AbortController();
    const review = startReview({ helpers: [sleeper("first", first), sleeper("second", second)] }, controller.signal);
    const outcome = review.then(
      () => "resolved",
      (err: unknown) => err,
    );
    expect(await eventually(async () => (await hostProcessesMarked(first)).length > 0, 30_000)).toBe(true);
    const aborted = performance.now();
    controller.abort();
    const err = await outcome;
    const endedAfterAbortMs = performance.now() - aborted;
    const seen = await watch.stop();
    expect(err).toMatchObject({ name: "AbortError" });
    expect(endedAfterAbortMs).toBeLessThan(3_000);
    await expectCheckoutReleased();
    expect(await hostProcessesMarked(first)).toEqual([]);
    expect(seen.filter((line) => line.includes(second))).toEqual([]);
  });

  it("aborted during the context script: rejects with the caller's reason and runs no helper", async () => {
    const [context, helper] = [`context-${randomUUID()}`, `helper-${randomUUID()}`];
    const watch = watchCommandLines(10);
    const controller = new AbortController();
    const review = startReview({ helpers: [sleeper("lint", helper)], contextScript: `#!/bin/sh\nexec sh -c 'sleep 60; : ${context}'\n` }, controller.signal);
    const outcome = review.then(
      () => "resolved",
      (err: unknown) => err,
    );
    expect(await eventually(async () => (await hostProcessesMarked(context)).length > 0, 30_000)).toBe(true);
    const reason = new Error("superseded by a newer head");
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    const seen = await watch.stop();
    await expectCheckoutReleased();
    expect(await hostProcessesMarked(context)).toEqual([]);
    expect(seen.filter((line) => line.includes(helper))).toEqual([]);
  });

  it("already aborted: rejects without checking anything out", async () => {
    const before = await readdir(join(cacheRoot, "mirrors"));
    const review = startReview({ helpers: [sleeper("lint", randomUUID())] }, AbortSignal.abort());
    await expect(review).rejects.toMatchObject({ name: "AbortError" });
    expect(await readdir(join(cacheRoot, "mirrors"))).toEqual(before);
    expect(await jobEntries(cacheRoot)).toEqual([]);
  });
});
