import { readFile, readdir } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostProcessesMarked } from "../support/host-processes.js";
import { helperEntry } from "../support/review-repos.js";
import { startFleet, waitUntil, type Fleet } from "./fleet-harness.js";
import { hostPull, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { checkRunsOf, waitForCompletedCheckRun } from "./check-runs.js";

const PULLS = 4;
const repository = (i: number): string => `octo/shared-${i}`;
const repositoryId = (i: number): number => 9300 + i;
const KILL_REPOSITORY = "octo/killed";
const KILL_REPOSITORY_ID = 9399;
const KILL_MARKER = "helper-to-be-orphaned";

let fleet: Fleet;
const pulls: HostedPull[] = [];
let killPull: HostedPull;

beforeAll(async () => {
  const repositories: Record<string, number> = { [KILL_REPOSITORY]: KILL_REPOSITORY_ID };
  for (let i = 0; i < PULLS; i++) repositories[repository(i)] = repositoryId(i);
  // One job at a time per worker: four jobs at once must spread over both.
  fleet = await startFleet({ repositories, workers: 2, workerEnv: { REVIEWBOT_CONCURRENCY: "1" } });
  for (let i = 0; i < PULLS; i++) {
    const script = `sleep 1; echo "src/a.ts:1: finding of pull ${i}"; echo "src/a.ts:2: second finding of pull ${i}"`;
    pulls.push(
      hostPull(fleet, {
        repository: repository(i),
        repositoryId: repositoryId(i),
        number: 20 + i,
        helpers: [helperEntry("quick", ["sh", "-c", script], { format: "errorformat" })],
        fork: (tree) => {
          tree.write("src/a.ts", `export const a = ${i};\nexport const b = ${i};\n`);
        },
      }),
    );
  }
  const slow = `: ${KILL_MARKER}; sleep 6; echo "src/k.ts:1: survived the crash"; echo "src/k.ts:2: and said it once"`;
  killPull = hostPull(fleet, {
    repository: KILL_REPOSITORY,
    repositoryId: KILL_REPOSITORY_ID,
    number: 99,
    helpers: [helperEntry("slow", ["sh", "-c", slow], { format: "errorformat", timeout_seconds: 60 })],
    fork: (tree) => {
      tree.write("src/k.ts", "export const k = 1;\nexport const l = 2;\n");
    },
  });
}, 180_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

/** Host pids below `root` (children, grandchildren, ...), from /proc's parent links. */
async function descendants(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(parent)) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() ?? -1) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

async function runsMarker(pid: number, marker: string): Promise<boolean> {
  for (const child of await descendants(pid)) {
    const cmdline = await readFile(`/proc/${child}/cmdline`).catch(() => Buffer.alloc(0));
    if (cmdline.includes(marker)) return true;
  }
  return false;
}

/** Job ids of the reviews each worker ran (its `sandbox run` audit lines). */
function jobsRunBy(index: number): Set<string> {
  const records = fleet.workers[index]?.records() ?? [];
  return new Set(records.filter((r) => r.msg === "sandbox run").map((r) => String(r.jobId)));
}

describe("two worker processes share one queue", () => {
  it("publishes each of four PRs exactly once, with work done by both workers", async () => {
    const jobIds: string[] = [];
    for (const pull of pulls) {
      const response = await fleet.deliver("pull_request", pullRequestEvent(pull, "opened"));
      expect(response.status).toBe(202);
      jobIds.push((JSON.parse(response.body) as { jobId: string }).jobId);
    }
    for (const [i, pull] of pulls.entries()) {
      const run = await waitForCompletedCheckRun(fleet, pull.headSha, 90_000);
      expect(run.annotations.map((a) => a.message).sort()).toEqual([`finding of pull ${i}`, `second finding of pull ${i}`]);
    }
    // Settle, then count: one check run per head, one create each.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const [i, pull] of pulls.entries()) {
      expect(checkRunsOf(fleet, pull.headSha)).toHaveLength(1);
      expect(fleet.github.calls("POST", new RegExp(`^/repos/${repository(i)}/check-runs$`))).toHaveLength(1);
    }
    const first = jobsRunBy(0);
    const second = jobsRunBy(1);
    expect([...first].filter((id) => second.has(id))).toEqual([]);
    expect(first.size).toBeGreaterThan(0);
    expect(second.size).toBeGreaterThan(0);
    expect(new Set([...first, ...second])).toEqual(new Set(jobIds));
  });

  it("finishes a job whose worker was SIGKILLed mid-review on the other worker, published exactly once", async () => {
    const response = await fleet.deliver("pull_request", pullRequestEvent(killPull, "opened"));
    expect(response.status).toBe(202);
    const jobId = (JSON.parse(response.body) as { jobId: string }).jobId;
    // The helper runs below exactly one worker process: that is the one to kill. Watched for at
    // once, not after the in_progress check run: that write is paced behind the previous test's
    // reviews and can come after the helper's six seconds are over.
    const victim = await waitUntil(
      async () => {
        for (const worker of fleet.workers) {
          if (worker.child.pid !== undefined && (await runsMarker(worker.child.pid, KILL_MARKER))) return worker;
        }
        return undefined;
      },
      "the slow helper to run under a worker",
      30_000,
    );
    expect((await fleet.reviews.getJob(jobId))?.finishedOn).toBeUndefined();
    expect(await fleet.reviews.getJobState(jobId)).toBe("active");
    const survivor = fleet.workers.find((worker) => worker !== victim);
    await victim.stop("SIGKILL");
    // Its sandbox dies with it (well before the lock expires and the survivor takes the job over).
    await expect.poll(async () => (await hostProcessesMarked(KILL_MARKER)).map((p) => p.cmdline), { timeout: 3000 }).toEqual([]);

    const run = await waitForCompletedCheckRun(fleet, killPull.headSha, 60_000);
    expect(run.conclusion).not.toBe("cancelled");
    expect(run.annotations.map((a) => a.message).sort()).toEqual(["and said it once", "survived the crash"]);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(checkRunsOf(fleet, killPull.headSha)).toHaveLength(1);
    expect(fleet.github.calls("POST", new RegExp(`^/repos/${KILL_REPOSITORY}/check-runs$`))).toHaveLength(1);
    // The PR review follows the check run (paced): wait for it, then make sure it stays one.
    const reviewsOfHead = (): number => [...fleet.github.state.reviews.values()].flat().filter((r) => r.commit_id === killPull.headSha).length;
    await expect.poll(reviewsOfHead, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(reviewsOfHead()).toBe(1);
    // The survivor ran it to the end; the job completed, not failed.
    const survivorRuns = (survivor?.records() ?? []).filter((r) => r.msg === "sandbox run" && r.jobId === jobId);
    expect(survivorRuns.map((r) => r.outcome)).toEqual(["ok"]);
    expect(await fleet.reviews.getJobState(jobId)).toBe("completed");
  });
});
