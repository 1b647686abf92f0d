import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFleet, waitUntil, type Fleet } from "./fleet-harness.js";
import { hostFindingPulls, pullRequestEvent, type HostedPull } from "./hosted-pull.js";
import { checkRunsOf, waitForCompletedCheckRun } from "./check-runs.js";

const NAMES = ["running", "during-1", "during-2", "after"] as const;
type Name = (typeof NAMES)[number];
const repository = (name: Name): string => `octo/restart-${name}`;
const repositoryId = (name: Name): number => 9500 + NAMES.indexOf(name);

let fleet: Fleet;
let pulls: ReadonlyMap<Name, HostedPull> = new Map();

beforeAll(async () => {
  fleet = await startFleet({ repositories: Object.fromEntries(NAMES.map((name) => [repository(name), repositoryId(name)])) });
  pulls = hostFindingPulls(fleet, NAMES, { repository, repositoryId, firstNumber: 30, slow: "running", file: "src/r.ts" });
}, 180_000);

afterAll(async () => {
  await (fleet as Fleet | undefined)?.stop();
});

const pullOf = (name: Name): HostedPull => pulls.get(name) ?? (undefined as never);

interface Delivery {
  readonly name: Name;
  readonly deliveryId: string;
  readonly statuses: number[];
}

async function send(delivery: Delivery): Promise<number> {
  const response = await fleet
    .deliver("pull_request", pullRequestEvent(pullOf(delivery.name), "opened"), delivery.deliveryId)
    .catch(() => ({ status: 0, body: "" }));
  delivery.statuses.push(response.status);
  return response.status;
}

describe("Redis restarting under a running fleet", () => {
  it("answers 202 or 503 while Redis is down, publishes every accepted delivery exactly once, and recovers without a restart", async () => {
    const pids = [fleet.api, ...fleet.workers].map((process) => process.child.pid);
    const deliveries = new Map<Name, Delivery>(NAMES.map((name) => [name, { name, deliveryId: randomUUID(), statuses: [] }]));
    const delivery = (name: Name): Delivery => deliveries.get(name) ?? (undefined as never);

    const first = await fleet.deliver("pull_request", pullRequestEvent(pullOf("running"), "opened"), delivery("running").deliveryId);
    delivery("running").statuses.push(first.status);
    expect(first.status).toBe(202);
    const jobId = (JSON.parse(first.body) as { jobId: string }).jobId;
    await waitUntil(async () => {
      const progress = (await fleet.reviews.getJob(jobId))?.progress as { stage?: string } | undefined;
      return progress?.stage === "helpers";
    }, "the running review's helper to start");

    // Redis goes away for 1.5 s while the helper sleeps; deliveries arrive meanwhile.
    const restarted = fleet.redis.restart(1500);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const during1 = await send(delivery("during-1"));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const during2 = await send(delivery("during-2"));
    await restarted;
    for (const status of [during1, during2]) expect([202, 503]).toContain(status);

    // GitHub redelivers what was not accepted: a 503 left nothing behind that would make the copy a duplicate.
    for (const name of ["during-1", "during-2"] as const) {
      if (delivery(name).statuses.at(-1) === 202) continue;
      await waitUntil(async () => (await send(delivery(name))) === 202, `a redelivery of ${name} to be accepted`, 15_000);
    }
    expect(await send(delivery("after"))).toBe(202);

    for (const name of NAMES) {
      const run = await waitForCompletedCheckRun(fleet, pullOf(name).headSha, 90_000);
      expect(run.annotations.map((a) => a.message)).toEqual([`finding of ${name}`]);
    }
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const name of NAMES) {
      const headSha = pullOf(name).headSha;
      expect(checkRunsOf(fleet, headSha), name).toHaveLength(1);
      const created = fleet.github.calls("POST", new RegExp(`^/repos/${repository(name)}/check-runs$`)).filter((c) => c.status === 201);
      expect(created, name).toHaveLength(1);
      const jobs = (await fleet.reviews.getJobs(["completed", "failed", "active", "waiting", "prioritized", "delayed"])).filter(
        (job) => (job.data as { headSha?: string }).headSha === headSha,
      );
      expect(
        jobs.map((job) => job.id),
        name,
      ).toHaveLength(1);
    }

    // The review that ran through the outage ran once: its lock outlived the outage, nobody took it over.
    const helperRuns = fleet.workers.flatMap((worker) => worker.records()).filter((r) => r.msg === "sandbox run" && r.jobId === jobId);
    expect(helperRuns.map((r) => r.outcome)).toEqual(["ok"]);

    // Same processes, serving again.
    expect([fleet.api, ...fleet.workers].map((process) => process.child.pid)).toEqual(pids);
    for (const process of [fleet.api, ...fleet.workers]) expect(process.child.exitCode, process.name).toBeNull();
    expect((await fetch(`${fleet.apiUrl}/readyz`)).status).toBe(200);
    const workerPort = (JSON.parse((await fleet.workers[0]?.waitForLog(/"health server listening"/)) ?? "{}") as { port: number }).port;
    expect((await fetch(`http://127.0.0.1:${workerPort}/readyz`)).status).toBe(200);
  });
});
