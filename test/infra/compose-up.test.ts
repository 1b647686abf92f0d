import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import { helperEntry } from "../support/review-repos.js";
import { startRootlessPodman } from "../support/rootless-podman.js";
import { BASE_IMAGE } from "../support/sandbox-specs.js";
import { checkRunOf, waitForCompletedCheckRun } from "../e2e/check-runs.js";
import { hostPull, pullRequestEvent, type HostedPull } from "../e2e/hosted-pull.js";
import { serviceOf, startComposedStack, type ComposedStack } from "./compose-stack.js";
import { runShippedWorker } from "./shipped-worker.js";

const run = promisify(execFile);
const REPOSITORY = "octo/composed";
const REPOSITORY_ID = 9301;
// What the helper sees of its sandbox, as findings on the PR's file: its uid, seccomp mode and interfaces.
const PROBE = [
  'echo "src/app.ts:1: uid=$(id -u)"',
  'echo "src/app.ts:2: seccomp=$(sed -n "s/^Seccomp:[[:space:]]*//p" /proc/self/status)"',
  'echo "src/app.ts:3: interfaces=$(ls /sys/class/net | tr "\\n" " ")"',
].join("; ");

let stack: ComposedStack;
let pull: HostedPull;
let reviews: Queue;

beforeAll(async () => {
  stack = await startComposedStack({ [REPOSITORY]: REPOSITORY_ID });
  reviews = new Queue(REVIEW_QUEUE, { connection: stack.redis });
  pull = hostPull(stack, {
    repository: REPOSITORY,
    repositoryId: REPOSITORY_ID,
    number: 3,
    helpers: [helperEntry("probe", ["sh", "-c", PROBE], { format: "errorformat" })],
    fork: (tree) => {
      tree.write("src/app.ts", "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n");
    },
  });
}, 15 * 60_000);

afterAll(async () => {
  await reviews.close().catch(() => undefined);
  await (stack as ComposedStack | undefined)?.stop();
}, 180_000);

describe("docker-compose.yml brought up on a private dockerd", () => {
  it("runs Redis, the api and two workers, each healthy, the workers on the Docker socket the override mounts", async () => {
    const containers = await stack.project.containers();
    expect(containers.map(serviceOf).sort()).toEqual(["api", "redis", "worker", "worker"]);
    for (const container of containers) expect(container.Status).toContain("(healthy)");
    const logs = await stack.logs();
    expect(logs.match(/"worker started".*"engine":"docker"|"engine":"docker".*"worker started"/g)).toHaveLength(2);
  });

  it("answers a webhook with a bad signature 401 and enqueues nothing", async () => {
    const forged = await stack.deliver("pull_request", pullRequestEvent(pull, "opened"), randomUUID(), { "x-hub-signature-256": `sha256=${"0".repeat(64)}` });
    expect(forged.status).toBe(401);
    const counts = await reviews.getJobCounts();
    expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(0);
    expect(stack.github.calls()).toEqual([]);
  });

  it("reviews a signed pull_request webhook: a worker runs the helper in a sandbox, the api publishes the check run and the review", async () => {
    const deliveryId = randomUUID();
    const response = await stack.deliver("pull_request", pullRequestEvent(pull, "opened"), deliveryId);
    expect(response.status).toBe(202);
    const checkRun = await waitForCompletedCheckRun(stack, pull.headSha, 180_000).catch(async (err: unknown) => {
      throw new Error(`${(err as Error).message}\n${(await stack.logs()).slice(-8000)}`, { cause: err });
    });
    expect(checkRun).toMatchObject({ name: "reviewbot", head_sha: pull.headSha, status: "completed" });
    // On the daemon the override hands the workers, and nowhere else (the worker refuses any other under require).
    expect(checkRun.output.summary).toContain("**Sandbox:** engine `docker`, sandboxed.");
    const messages = checkRun.annotations.map((annotation) => annotation.message);
    expect(messages).toHaveLength(3);
    const uid = Number(/uid=(\d+)/.exec(messages.join("\n"))?.[1]);
    expect(uid).toBeGreaterThan(0);
    expect(messages).toContainEqual(expect.stringMatching(/seccomp=2$/));
    expect(messages).toContainEqual(expect.stringMatching(/interfaces=lo ?$/));
    // The review follows the check run: one comment per finding, on the PR's lines (Markdown-escaped).
    await expect.poll(() => stack.github.state.reviews.get(`${REPOSITORY}#3`)?.length ?? 0, { timeout: 30_000 }).toBe(1);
    const comments = stack.github.state.reviews.get(`${REPOSITORY}#3`)?.[0]?.comments ?? [];
    expect(comments.map((comment) => [comment.path, comment.line])).toEqual([
      ["src/app.ts", 1],
      ["src/app.ts", 2],
      ["src/app.ts", 3],
    ]);
    expect(comments[1]?.body).toContain("seccomp\\=2");
    const jobs = await reviews.getJobs(["completed"]);
    expect(jobs.filter((job) => job.id?.includes(deliveryId))).toHaveLength(1);
    expect(checkRunOf(stack, pull.headSha)).toBeDefined();
  });

  it("refuses, as docker-compose.yml ships it, the host's rootless Podman on this cgroup v1 host: the probe ran through the socket and found no limits", async () => {
    const rootless = await startRootlessPodman([BASE_IMAGE]);
    try {
      const { run, leftovers } = await runShippedWorker(stack, rootless);
      expect(run.output).toMatch(/reviewbot-worker: SANDBOX_UNAVAILABLE: .*podman: .*memory limit: \S+ \(limit not applied/);
      expect(run.output).toMatch(/pids limit: \S+ \(limit not applied/);
      expect(run.status).toBe(2);
      expect(leftovers).toEqual({ containers: [], volumes: [], networks: [] });
    } finally {
      await rootless.dispose();
    }
  });

  it("leaves nothing behind after down -v: no container, volume or network, dockerd stopped, its directories and bridges gone", async () => {
    const { daemon, project, bridges } = stack;
    await project.compose(["down", "-v", "--timeout", "60"]);
    expect(await project.leftovers()).toEqual({ containers: [], volumes: [], networks: [] });
    // The helpers' sibling containers too: the daemon has none of anything.
    expect(await daemon.docker.listContainers({ all: true })).toEqual([]);
    await stack.stop();
    expect(existsSync(`/proc/${daemon.pid}`)).toBe(false);
    for (const dir of [...daemon.dirs, stack.root]) expect(existsSync(dir)).toBe(false);
    const links = (await run("ip", ["-o", "link", "show"])).stdout;
    for (const bridge of bridges) expect(links).not.toContain(bridge);
    expect((await run("ps", ["-eo", "args"])).stdout).not.toContain(daemon.socketPath);
  });
});
