import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkTreeWriter } from "../support/git-fixture.js";
import { helperEntry, type HelperEntry } from "../support/review-repos.js";
import { startFleet, waitUntil, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { checkRunsOf, waitForCompletedCheckRun } from "./check-runs.js";
import type { RecordedRequest } from "../support/github-stand-in.js";

const REPOSITORY = "octo/flaky";
const REPOSITORY_ID = 9401;
const MIDWAY_REPOSITORY = "octo/midway";
const MIDWAY_REPOSITORY_ID = 9402;
const FINDINGS = 60;
const PATCH_ROUTE = "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}";
const POST_ROUTE = "POST /repos/{owner}/{repo}/check-runs";

let fleet: Fleet;
let pull: HostedPull;
let midway: HostedPull;

beforeAll(async () => {
  fleet = await startFleet({ repositories: { [REPOSITORY]: REPOSITORY_ID, [MIDWAY_REPOSITORY]: MIDWAY_REPOSITORY_ID } });
  const script = `for i in $(seq 1 ${FINDINGS}); do echo "src/f.ts:$i: flaky finding $i"; done`;
  // Fixture commits are deterministic: a line naming the repository keeps the two heads apart.
  const options = (repository: string): { helpers: HelperEntry[]; fork: (tree: WorkTreeWriter) => void } => ({
    helpers: [helperEntry("many", ["sh", "-c", script], { format: "errorformat" })],
    fork: (tree: WorkTreeWriter) => {
      tree.write("src/f.ts", `${Array.from({ length: FINDINGS }, (_, i) => `export const f${i} = ${i};\n`).join("")}// ${repository}\n`);
    },
  });
  pull = hostPull(fleet, { repository: REPOSITORY, repositoryId: REPOSITORY_ID, number: 5, ...options(REPOSITORY) });
  midway = hostPull(fleet, { repository: MIDWAY_REPOSITORY, repositoryId: MIDWAY_REPOSITORY_ID, number: 6, ...options(MIDWAY_REPOSITORY) });
  expect(midway.headSha).not.toBe(pull.headSha);
}, 180_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

/** The value of one api metric series whose labels include all of `labels` (0 when absent). */
async function metric(name: string, labels: Readonly<Record<string, string>>): Promise<number> {
  const text = await (await fetch(`${fleet.apiUrl}/metrics`)).text();
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && wanted.every((label) => l.includes(label)));
  return line === undefined ? 0 : Number(line.split(" ").at(-1));
}

describe("GitHub answering 502s and a secondary rate limit", () => {
  it("still publishes the result exactly once, and the api's /metrics shows the waits and the 502s", async () => {
    fleet.github.fail("POST", /^\/repos\/octo\/flaky\/check-runs$/, 1, "secondary-rate-limit");
    fleet.github.fail("PATCH", /^\/repos\/octo\/flaky\/check-runs\/\d+$/, 2, "502");

    const response = await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"));
    expect(response.status).toBe(202);
    const run = await waitForCompletedCheckRun(fleet, pull.headSha, 90_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // The faults were really served (otherwise this test proves nothing).
    const faulted = fleet.github.calls(undefined, /^\/repos\/octo\/flaky\/check-runs/).filter((c) => c.status === 502 || c.status === 403);
    expect(faulted.map((c) => `${c.method} ${c.status}`).sort()).toEqual(["PATCH 502", "PATCH 502", "POST 403"]);

    expect(checkRunsOf(fleet, pull.headSha)).toHaveLength(1);
    const created = fleet.github.calls("POST", /^\/repos\/octo\/flaky\/check-runs$/).filter((c) => c.status === 201);
    expect(created).toHaveLength(1);
    expect(run.status).toBe("completed");
    expect(run.conclusion).not.toBe("failure");
    const messages = run.annotations.map((a) => a.message);
    expect(messages).toHaveLength(FINDINGS);
    expect(new Set(messages).size).toBe(FINDINGS);
    expect(new Set(messages)).toEqual(new Set(Array.from({ length: FINDINGS }, (_, i) => `flaky finding ${i + 1}`)));

    expect(await metric("reviewbot_github_rate_limit_waits_total", { kind: "secondary" })).toBe(1);
    expect(await metric("reviewbot_github_rate_limit_wait_seconds_total", { kind: "secondary" })).toBeGreaterThanOrEqual(1);
    expect(await metric("reviewbot_github_requests_total", { route: PATCH_ROUTE, status: "502" })).toBe(2);
    expect(await metric("reviewbot_github_requests_total", { route: POST_ROUTE, status: "403" })).toBe(1);
    expect(await metric("reviewbot_github_requests_total", { route: POST_ROUTE, status: "201" })).toBe(1);
    // The completed task ends after the PR review that follows the check run.
    await expect.poll(() => metric("reviewbot_publisher_tasks_total", { kind: "completed", outcome: "done" }), { timeout: 15_000 }).toBe(1);
    expect(await metric("reviewbot_publisher_tasks_total", { kind: "completed", outcome: "failed" })).toBe(0);
  });

  it("resumes after the batches already sent when GitHub fails mid-way long enough to fail the task once", async () => {
    const patch502Before = await metric("reviewbot_github_requests_total", { route: PATCH_ROUTE, status: "502" });
    const retriesBefore = await metric("reviewbot_publisher_tasks_total", { kind: "completed", outcome: "retry" });
    const patches = (): RecordedRequest[] => fleet.github.calls("PATCH", /^\/repos\/octo\/midway\/check-runs\/\d+$/);
    const response = await fleet.deliver("pull_request", pullRequestEvent(midway, "opened"));
    expect(response.status).toBe(202);
    // The first batch of 50 went through: from now on GitHub fails more often than Octokit retries
    // (1 + 3 attempts), so the publisher task itself fails and runs again.
    await waitUntil(() => patches().some((call) => call.status === 200), "the first annotation batch", 90_000);
    fleet.github.fail("PATCH", /^\/repos\/octo\/midway\/check-runs\/\d+$/, 4, "502");
    const run = await waitForCompletedCheckRun(fleet, midway.headSha, 80_000);

    expect(patches().map((call) => call.status)).toEqual([200, 502, 502, 502, 502, 200]);
    const sent = patches()
      .filter((call) => call.status === 200)
      .map((call) => (call.body as { output?: { annotations?: unknown[] } }).output?.annotations?.length);
    expect(sent).toEqual([50, FINDINGS - 50]);
    const messages = run.annotations.map((a) => a.message);
    expect(messages).toHaveLength(FINDINGS);
    expect(new Set(messages).size).toBe(FINDINGS);
    expect(checkRunsOf(fleet, midway.headSha)).toHaveLength(1);
    expect(await metric("reviewbot_github_requests_total", { route: PATCH_ROUTE, status: "502" })).toBe(patch502Before + 4);
    expect(await metric("reviewbot_publisher_tasks_total", { kind: "completed", outcome: "retry" })).toBe(retriesBefore + 1);
  }, 90_000);
});
