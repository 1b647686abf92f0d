import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startKeySlots, type KeySlots } from "../support/key-slots.js";
import { helperEntry } from "../support/review-repos.js";
import { waitForCompletedCheckRun } from "./check-runs.js";
import { startFleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent } from "./hosted-pull.js";

const REPOSITORY = "octo/keyspace";
const REPOSITORY_ID = 9301;

let slots: KeySlots | undefined;
beforeAll(async () => {
  slots = await startKeySlots();
});
afterAll(async () => {
  await slots?.stop();
});

/**
 * Runs the fleet (real api and worker processes, Redis with the project's ACL users) under
 * `prefix`, reviews one PR through to its published check run and review, and returns every key
 * then in Redis with each key's Cluster slot, and the review job's id.
 */
async function reviewOnePull(prefix: string | undefined): Promise<{ slotOf: Map<string, number>; jobId: string }> {
  const fleet = await startFleet({ repositories: { [REPOSITORY]: REPOSITORY_ID }, ...(prefix === undefined ? {} : { redisPrefix: prefix }) });
  const admin = new Redis(fleet.redis.url);
  try {
    const pull = hostPull(fleet, {
      repository: REPOSITORY,
      repositoryId: REPOSITORY_ID,
      number: 3,
      helpers: [helperEntry("one", ["sh", "-c", "echo 'src/a.ts:1: one finding'"], { format: "errorformat" })],
      fork: (tree) => {
        tree.write("src/a.ts", "export const a = 1;\n");
      },
    });
    expect((await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"))).status).toBe(202);
    await waitForCompletedCheckRun(fleet, pull.headSha);
    // The publisher's review follows the check run: every key its tasks write is in place after it.
    await expect.poll(() => fleet.github.state.reviews.size, { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => Object.values(await fleet.tasks.getJobCounts("waiting", "active")).every((n) => n === 0), { timeout: 10_000 }).toBe(true);
    const [job] = await fleet.reviews.getJobs(["completed"]);
    const keys: string[] = [];
    let cursor = "0";
    do {
      const [next, page] = await admin.scan(cursor, "COUNT", 1000);
      keys.push(...page);
      cursor = next;
    } while (cursor !== "0");
    const slotOf = new Map<string, number>();
    for (const key of keys) slotOf.set(key, (await slots?.slotOf(key)) ?? -1);
    return { slotOf, jobId: job?.id ?? "" };
  } finally {
    admin.disconnect();
    await fleet.stop();
  }
}

describe("REVIEWBOT_REDIS_PREFIX", () => {
  it("puts every key of BullMQ's and ours under a hash tag, in one Cluster slot, through a whole review", async () => {
    const { slotOf, jobId } = await reviewOnePull("{rb}");
    const keys = [...slotOf.keys()];
    expect(keys.filter((key) => !key.startsWith("{rb}:"))).toEqual([]);
    // Both keyspaces were written: BullMQ's queues and ours (ledger, PR state, the api's outcome record).
    for (const part of ["{rb}:bull:reviews:", "{rb}:bull:github:", "{rb}:delivery:", "{rb}:pr:", "{rb}:outcome:"]) {
      expect(keys.some((key) => key.startsWith(part))).toBe(true);
    }
    const jobKeys = keys.filter((key) => key.includes(jobId));
    expect(jobKeys).toEqual(expect.arrayContaining([`{rb}:bull:reviews:${jobId}`, `{rb}:outcome:${jobId}`]));
    expect(new Set(slotOf.values())).toEqual(new Set([slotOf.get(`{rb}:outcome:${jobId}`)]));
  }, 240_000);

  it("keeps today's names without it: bull: and reviewbot: keys, whose slots differ (a Cluster could not run the scripts)", async () => {
    const { slotOf, jobId } = await reviewOnePull(undefined);
    const keys = [...slotOf.keys()];
    expect(keys.filter((key) => !key.startsWith("bull:") && !key.startsWith("reviewbot:"))).toEqual([]);
    expect(keys.some((key) => key.startsWith("bull:reviews:"))).toBe(true);
    expect(keys.some((key) => key.startsWith("reviewbot:pr:"))).toBe(true);
    const jobKeys = keys.filter((key) => key.includes(jobId));
    expect(jobKeys).toEqual(expect.arrayContaining([`bull:reviews:${jobId}`, `reviewbot:outcome:${jobId}`]));
    expect(new Set(jobKeys.map((key) => slotOf.get(key))).size).toBeGreaterThan(1);
  }, 240_000);
});
