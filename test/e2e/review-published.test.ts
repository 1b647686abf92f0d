import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { helperEntry } from "../support/review-repos.js";
import { FLEET_ENGINES } from "./fleet-engine.js";
import { startFleet, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { checkRunOf, waitForCompletedCheckRun } from "./check-runs.js";

const REPOSITORY = "octo/widgets";
const REPOSITORY_ID = 9001;
const FINDINGS = 120;

let fleet: Fleet;
let pull: HostedPull;

describe.each(FLEET_ENGINES)("a signed pull_request webhook becomes a published check run (helpers on %s)", (engine) => {
  beforeAll(async () => {
    fleet = await startFleet({ repositories: { [REPOSITORY]: REPOSITORY_ID }, engine });
    const script = `for i in $(seq 1 ${FINDINGS}); do echo "src/many.ts:$i: finding $i by @octocat ![x](https://evil.example/p.png)"; done`;
    pull = hostPull(fleet, {
      repository: REPOSITORY,
      repositoryId: REPOSITORY_ID,
      number: 7,
      helpers: [helperEntry("many", ["sh", "-c", script], { format: "errorformat" })],
      fork: (tree) => {
        tree.write("src/many.ts", Array.from({ length: FINDINGS }, (_, i) => `export const v${i} = ${i};\n`).join(""));
      },
    });
  }, 180_000);

  afterAll(async () => {
    await (fleet as Fleet | undefined)?.stop();
  });

  it("answers 202 at once, runs the review on a worker and publishes 120 annotations in three batches", async () => {
    const response = await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"));
    expect(response.status).toBe(202);

    const run = await waitForCompletedCheckRun(fleet, pull.headSha);
    expect(run).toMatchObject({ name: "reviewbot", head_sha: pull.headSha, status: "completed" });
    expect(run.annotations).toHaveLength(FINDINGS);
    const patches = fleet.github.calls("PATCH", /\/repos\/octo\/widgets\/check-runs\/\d+$/);
    const batches = patches.map((call) => ((call.body as { output?: { annotations?: unknown[] } }).output?.annotations ?? []).length).filter((n) => n > 0);
    expect(batches).toEqual([50, 50, 20]);
    expect(fleet.github.calls("POST", /\/check-runs$/)).toHaveLength(1);
    // The summary names the commit `.ai/` came from: the default branch's head, never the PR's base.
    expect(run.output.summary).toContain(`\`.ai/\` from the head of \`main\`, commit \`${pull.baseSha}\`.`);
    // The helper ran on the fleet's engine, and only there (the worker refuses any other under require).
    expect(run.output.summary).toContain(`**Sandbox:** engine \`${engine}\`, sandboxed.`);
    // Everything published is sanitised: no live mention anywhere; in what GitHub renders as
    // Markdown (the review's comments), no external image either. Annotations are plain text.
    // The review with comments follows the check run.
    await expect.poll(() => JSON.stringify([...fleet.github.state.reviews.values()]), { timeout: 10_000 }).toContain("finding 1 by");
    const reviews = JSON.stringify([...fleet.github.state.reviews.values()]);
    for (const published of [JSON.stringify(run), reviews]) expect(published).not.toMatch(/(^|[^\w`])@octocat/);
    expect(reviews).not.toContain("![x](https://evil.example");
  });

  it("asked the token broker for a token scoped to that one repository, read-only", () => {
    const scoped = fleet.github.minted.filter((token) => token.repositoryIds !== undefined);
    expect(scoped.length).toBeGreaterThan(0);
    for (const token of scoped) {
      expect(token.repositoryIds).toEqual([REPOSITORY_ID]);
      expect(Object.values(token.permissions ?? {}).every((level) => level === "read")).toBe(true);
    }
  });

  it("acknowledges a redelivery of the same delivery without a second review", async () => {
    const deliveryId = "11111111-2222-3333-4444-555555555555";
    const first = await fleet.deliver("pull_request", pullRequestEvent(pull, "reopened"), deliveryId);
    expect(first.status).toBe(202);
    const again = await fleet.deliver("pull_request", pullRequestEvent(pull, "reopened"), deliveryId);
    expect(again.status).toBe(202);
    expect(JSON.parse(again.body)).toMatchObject({ status: "duplicate" });
    const jobs = await fleet.reviews.getJobs(["waiting", "prioritized", "active", "completed", "failed", "delayed"]);
    expect(jobs.filter((job) => job.id?.includes(deliveryId))).toHaveLength(1);
    expect(checkRunOf(fleet, pull.headSha)).toBeDefined();
  });
});
