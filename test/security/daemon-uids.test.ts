import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerEngine } from "@reviewbot/sandbox/container-engine";
import { createContainerEngine, type ContainerEngineConfig } from "@reviewbot/sandbox/create-container-engine";
import { NAMESPACED_SANDBOX_UIDS } from "@reviewbot/sandbox/daemon-uid-names";
import { DEFAULT_SANDBOX_UIDS, type HostUidRange } from "@reviewbot/sandbox/host-uid-pool";
import { CONTAINER_ENGINES } from "../support/container-engines.js";
import { untilNoContainers } from "../support/engine-idle.js";
import { holdHelper, hostUids, uidsOfTwoInFlight } from "../support/held-helpers.js";
import type { ContainerEngineFixture } from "../support/podman-engine.js";
import { startRootlessDocker } from "../support/rootless-docker.js";
import { startRootlessPodman } from "../support/rootless-podman.js";
import { subordinateRange, type RootlessEngine } from "../support/rootless-user.js";
import { inRange } from "../support/sandbox-uids.js";
import { BASE_IMAGE, CONTAINERS_CONF, shellSpec } from "../support/sandbox-specs.js";
import { reachableTempDir } from "../support/temp-dirs.js";

// Workers that reach one daemon through a configured socket (Compose workers, each in a
// container of its own) cannot see one another's host leases; the daemon arbitrates instead: a
// run's container is named after its uid, and a second container of that name is refused.

/** An engine as a worker behind `socketPath` makes it, with a state directory of its own. */
async function socketEngine(
  kind: "podman" | "docker",
  socketPath: string,
  extra: Partial<ContainerEngineConfig> = {},
): Promise<{ engine: ContainerEngine; close(): Promise<void> }> {
  const stateDir = extra.stateDir ?? (await mkdtemp(join(tmpdir(), "reviewbot-socket-worker-")));
  const engine = await createContainerEngine({ kind, socketPath, stateDir, containersConf: CONTAINERS_CONF, ...extra });
  return {
    engine,
    close: async () => {
      await engine.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

describe.each(CONTAINER_ENGINES)("workers sharing a rootful $name daemon through its socket", ({ name, open }) => {
  let daemon: ContainerEngineFixture;
  const workers: { engine: ContainerEngine; close(): Promise<void> }[] = [];

  beforeAll(async () => {
    daemon = await open("daemon-uids");
    await daemon.engine.imageId(BASE_IMAGE); // starts the private service the workers connect to
    workers.push(await socketEngine(name, daemon.socketPath), await socketEngine(name, daemon.socketPath));
  }, 180_000);

  afterAll(async () => {
    for (const worker of workers) await worker.close();
    await daemon.close();
  });

  it("gives two workers' helpers in flight two host uids of the range, neither root nor a worker's", async () => {
    const [one, two] = workers.map((worker) => worker.engine);
    if (one === undefined || two === undefined) throw new Error("two workers");
    expect(one.uidRange).toEqual(DEFAULT_SANDBOX_UIDS);
    const uids = await uidsOfTwoInFlight(name, [one, two], daemon.worktree);
    for (const uid of uids) expect(inRange(DEFAULT_SANDBOX_UIDS, uid), String(uid)).toBe(true);
  });

  it("never hands out a uid whose name another holds on the daemon: with one of two squatted, a second run in flight is refused", async () => {
    const range: HostUidRange = { first: DEFAULT_SANDBOX_UIDS.first + DEFAULT_SANDBOX_UIDS.count - 2, count: 2 };
    const worker = await socketEngine(name, daemon.socketPath, { daemonUids: range });
    // A root worker hands an install's mount to the run's uid: installs run here.
    expect(worker.engine.runsInstalls).toBe(true);
    // Created, never started: it holds the name as a crashed worker's container would.
    const squatter = await daemon.docker.createContainer({ Image: BASE_IMAGE, Cmd: ["true"], name: `reviewbot-uid-${String(range.first)}` });
    try {
      const held = await holdHelper(`${name} (two uids)`, worker.engine, daemon.worktree, `held-${randomUUID()}`);
      expect(hostUids(held)).toEqual([range.first + 1]);
      await expect(worker.engine.run(shellSpec(daemon.worktree, "true"))).rejects.toMatchObject({
        code: "SANDBOX_UNAVAILABLE",
        message: expect.stringContaining("no free sandbox uid") as unknown,
      });
      await held.done;
      // Negative control: with the squatter gone and the run's container removed (in the
      // background, after the result), both uids serve again, one run each in flight.
      await squatter.remove({ force: true });
      await untilNoContainers(
        daemon.docker,
        30_000,
        [0, 1].map((i) => `reviewbot-uid-${String(range.first + i)}`),
      );
      const again = await Promise.all(
        [0, 1].map((i) => holdHelper(`${name} (two uids)`, worker.engine, daemon.worktree, `again-${String(i)}-${randomUUID()}`)),
      );
      expect(again.flatMap(hostUids).sort()).toEqual([range.first, range.first + 1]);
      await Promise.all(again.map((helper) => helper.done));
    } finally {
      await squatter.remove({ force: true }).catch(() => undefined);
      await worker.close();
    }
  });
});

const ROOTLESS: readonly {
  readonly name: string;
  readonly kind: "podman" | "docker";
  readonly start: (images: readonly string[]) => Promise<RootlessEngine>;
}[] = [
  { name: "podman", kind: "podman", start: startRootlessPodman },
  { name: "docker", kind: "docker", start: startRootlessDocker },
];

describe.each(ROOTLESS)("helpers on a rootless $name daemon", ({ name, kind, start }) => {
  let rootless: RootlessEngine | undefined;
  let worker: { engine: ContainerEngine; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    rootless = await start([BASE_IMAGE]);
    // The user's state directory: its Podman reads the seccomp profile from there.
    worker = await socketEngine(kind, rootless.socketPath, { stateDir: rootless.stateDir });
  }, 180_000);

  afterAll(async () => {
    await worker?.close();
    await rootless?.dispose();
  });

  it("run as two host uids of the user's subordinate range, neither the user's nor root", async () => {
    const engine = worker?.engine ?? expect.fail("no engine");
    const user = rootless ?? expect.fail("no rootless user");
    expect(engine.uidRange).toEqual(NAMESPACED_SANDBOX_UIDS);
    const subordinate = (await subordinateRange(user.user)) ?? expect.fail(`${user.user} has no subordinate uids`);
    const worktree = await reachableTempDir("rootless-uids");
    for (const uid of await uidsOfTwoInFlight(`rootless ${name}`, [engine, engine], worktree)) {
      expect(uid).not.toBe(user.uid);
      expect(uid >= subordinate.start && uid < subordinate.end, String(uid)).toBe(true);
      // Container uid N is subordinate id N - 1: each run's uid is one of the namespaced range's.
      expect(inRange(NAMESPACED_SANDBOX_UIDS, uid - subordinate.start + 1), String(uid)).toBe(true);
    }
  });

  it("refuses a run with a writable mount (an install), which the worker cannot hand to a uid of the namespace, and says so up front", async () => {
    const engine = worker?.engine ?? expect.fail("no engine");
    const stateDir = rootless?.stateDir ?? expect.fail("no rootless user");
    expect(engine.runsInstalls).toBe(false);
    const target = await mkdtemp(join(stateDir, "install-"));
    const worktree = await reachableTempDir("rootless-install");
    await expect(
      engine.run(shellSpec(worktree, "touch /opt/reviewbot/deps/x", { mounts: [{ source: target, target: "/opt/reviewbot/deps", writable: true }] })),
    ).rejects.toMatchObject({
      code: "POLICY_DENIED",
      message: expect.stringContaining("writable mount needs a run uid of its own") as unknown,
    });
  });
});
