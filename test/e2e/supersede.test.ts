import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helperEntry } from "../support/review-repos.js";
import { startFleet, waitUntil, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, pushToPull, type HostedPull } from "./hosted-pull.js";
import { checkRunOf, waitForCheckRun, waitForCompletedCheckRun } from "./check-runs.js";

const REPOSITORY = "octo/supersede";
const REPOSITORY_ID = 9201;
const SLEEP_SECONDS = 8;

let fleet: Fleet;
let pull: HostedPull;

beforeAll(async () => {
  fleet = await startFleet({ repositories: { [REPOSITORY]: REPOSITORY_ID } });
  // Slow, then one finding naming what it saw, so each head's result is recognisable.
  const script = `sleep ${SLEEP_SECONDS}; echo "src/a.ts:1: saw $(head -n 1 src/a.ts)"`;
  pull = hostPull(fleet, {
    repository: REPOSITORY,
    repositoryId: REPOSITORY_ID,
    number: 11,
    helpers: [helperEntry("slow", ["sh", "-c", script], { format: "errorformat", timeout_seconds: 60 })],
    fork: (tree) => {
      tree.write("src/a.ts", "export const head = 'first';\n");
    },
  });
}, 180_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

interface SandboxRun {
  readonly jobId: string;
  readonly start: number;
  readonly end: number;
  readonly outcome: string;
}

function sandboxRuns(): SandboxRun[] {
  return fleet.workers
    .flatMap((w) => w.records())
    .filter((r) => r.msg === "sandbox run")
    .map((r) => {
      const end = Date.parse(String(r.time));
      return { jobId: String(r.jobId), start: end - Number(r.durationMs), end, outcome: String(r.outcome) };
    });
}

describe("a push to a PR under review supersedes the running review", () => {
  it("cancels the old head's run at once, publishes only the new head's result, never two reviews of the PR at a time", async () => {
    const oldHead = pull.headSha;
    const opened = await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"));
    expect(opened.status).toBe(202);
    const oldJobId = (JSON.parse(opened.body) as { jobId: string }).jobId;

    // The review is running: check run in progress at the stand-in, and the helper is in its sandbox.
    await waitForCheckRun(fleet, oldHead, (run) => run.status === "in_progress", 60_000);
    await waitUntil(async () => {
      const job = await fleet.reviews.getJob(oldJobId);
      const progress = job?.progress as { stage?: string } | undefined;
      return progress?.stage === "helpers";
    }, "the old review's helpers to start");
    const helpersRunningAt = Date.now();

    const newHead = pushToPull(fleet, pull, (tree) => {
      tree.write("src/a.ts", "export const head = 'second';\n");
    });
    const synchronized = await fleet.deliver("pull_request", pullRequestEvent(pull, "synchronize"));
    expect(synchronized.status).toBe(202);
    const newJobId = (JSON.parse(synchronized.body) as { jobId: string; cancelled?: string }).jobId;

    // Cancelled fast: well before the old helper's sleep would have ended on its own.
    const cancelled = await waitForCheckRun(fleet, oldHead, (run) => run.status === "completed", 30_000);
    const cancelledAfterMs = Date.now() - helpersRunningAt;
    expect(cancelled.conclusion).toBe("cancelled");
    expect(cancelledAfterMs).toBeLessThan((SLEEP_SECONDS - 3) * 1000);
    expect(cancelled.annotations).toHaveLength(0);

    // The new head: one completed check run carrying its own finding.
    const current = await waitForCompletedCheckRun(fleet, newHead, 90_000);
    expect(current.annotations.map((a) => a.message)).toEqual([expect.stringContaining("saw export const head = 'second';")]);
    await expect.poll(() => [...fleet.github.state.reviews.values()].flat().filter((r) => r.commit_id === newHead).length, { timeout: 10_000 }).toBe(1);

    // Let anything the old run might still publish arrive, then look at everything the stand-in got.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const oldRun = checkRunOf(fleet, oldHead);
    expect(oldRun).toMatchObject({ status: "completed", conclusion: "cancelled", annotations: [] });
    const patchesOfOld = fleet.github.calls("PATCH", new RegExp(`/check-runs/${oldRun?.id ?? -1}$`));
    for (const call of patchesOfOld) {
      const body = call.body as { output?: { annotations?: unknown[] } };
      expect(body.output?.annotations ?? []).toEqual([]);
    }
    const reviews = [...fleet.github.state.reviews.values()].flat();
    expect(reviews.filter((r) => r.commit_id !== newHead)).toEqual([]);
    expect(JSON.stringify(reviews)).not.toContain("'first'");

    // The old helper was killed, not left to finish; one review of the PR at a time.
    const runs = sandboxRuns();
    const oldRuns = runs.filter((r) => r.jobId === oldJobId);
    const newRuns = runs.filter((r) => r.jobId === newJobId);
    expect(oldRuns.map((r) => r.outcome)).toEqual(["cancelled"]);
    expect(newRuns.map((r) => r.outcome)).toEqual(["ok"]);
    const oldJob = await fleet.reviews.getJob(oldJobId);
    const newJob = await fleet.reviews.getJob(newJobId);
    expect(oldJob?.finishedOn).toBeDefined();
    expect(newJob?.finishedOn).toBeDefined();
    const oldEnd = Math.max(...oldRuns.map((r) => r.end));
    const newStart = Math.min(...newRuns.map((r) => r.start));
    expect(newStart).toBeGreaterThanOrEqual(oldEnd);
    // The new review's check run was created only once the old review let go of the PR.
    const newRunCreated = fleet.github.calls("POST", /\/check-runs$/).filter((c) => (c.body as { head_sha?: string }).head_sha === newHead);
    expect(newRunCreated).toHaveLength(1);
    expect(newRunCreated[0]?.at ?? 0).toBeGreaterThanOrEqual(oldEnd);
    expect(fleet.allLogs()).not.toMatch(/"level":(50|60)/);
  });
});
