import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import Dockerode from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { untilNoContainers } from "../support/engine-idle.js";
import { hostProcessesMarked } from "../support/host-processes.js";
import { openWorkerStand, type WorkerStand } from "../support/worker-fixture.js";
import type { WorkerProcess } from "../support/worker-process.js";

// /readyz used to stay 200 after the sandbox engine died. A worker on its own Podman service
// (no REVIEWBOT_PODMAN_SOCKET): the service is killed, /readyz must say so, and the worker, which
// supervises that service, must bring it back.
let stand: WorkerStand;
let worker: WorkerProcess;
let socket: string;

beforeAll(async () => {
  stand = await openWorkerStand("worker-readiness");
  worker = await stand.start({ REVIEWBOT_ENGINE: "podman", REVIEWBOT_SANDBOX: "require" });
  socket = join(stand.env.REVIEWBOT_CACHE_DIR ?? "", "sandbox", "podman", "podman.sock");
}, 240_000);
afterAll(async () => {
  await stand.close();
});

interface Ready {
  readonly status: number;
  readonly body: { redis: boolean; sandbox: boolean; reason?: string };
}

async function readyz(): Promise<Ready> {
  const response = await fetch(`http://127.0.0.1:${worker.port}/readyz`);
  return { status: response.status, body: (await response.json()) as Ready["body"] };
}

/** Polls /readyz until it answers `status`; returns that answer. */
async function readyzUntil(status: number, timeoutMs: number): Promise<Ready> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await readyz();
    if (ready.status === status) return ready;
    if (Date.now() > deadline) throw new Error(`/readyz still answers ${ready.status} ${JSON.stringify(ready.body)} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** This worker's `podman system service` processes (their argv names the worker's private socket). */
async function services(): Promise<number[]> {
  return (await hostProcessesMarked(`unix://${socket}`)).filter((found) => found.cmdline.includes("system service")).map((found) => found.pid);
}

describe("worker /readyz follows its private Podman service", () => {
  it("answers 503 naming the dead service once it is killed, and 200 again once the worker has restarted it", async () => {
    // Negative control: ready while the service runs.
    expect(await readyz()).toEqual({ status: 200, body: { redis: true, sandbox: true } });
    // Killed idle: a service killed mid-removal corrupts Podman's store for the whole host.
    await untilNoContainers(new Dockerode({ socketPath: socket }), 10_000);
    const [killed, ...others] = await services();
    expect(killed).toBeDefined();
    expect(others).toEqual([]);
    process.kill(killed ?? 0, "SIGKILL");

    const down = await readyzUntil(503, 10_000);
    expect(down.body).toMatchObject({ redis: true, sandbox: false });
    expect(down.body.reason).toMatch(/^sandbox: podman system service exited \(SIGKILL\); starting it again$/);

    const back = await readyzUntil(200, 30_000);
    expect(back.body).toEqual({ redis: true, sandbox: true });
    const restarted = await services();
    expect(restarted).toHaveLength(1);
    expect(restarted).not.toContain(killed);
    const messages = worker.records().map((line) => [line.msg, line.reason]);
    expect(messages).toContainEqual(["sandbox engine unhealthy", "podman system service exited (SIGKILL); starting it again"]);
    expect(messages).toContainEqual(["sandbox engine healthy again", undefined]);
  });
});
