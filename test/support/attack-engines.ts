import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BwrapEngine } from "@reviewbot/sandbox/bwrap-engine";
import { createContainerEngine } from "@reviewbot/sandbox/create-container-engine";
import type { HostUidRange } from "@reviewbot/sandbox/host-uid-pool";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import { reachableTempDir } from "./temp-dirs.js";
import { openDockerEngine, TEST_DOCKER_DATA_ROOT } from "./docker-engine.js";
import { CONTAINERS_CONF } from "./sandbox-specs.js";
import { startRootlessPodman } from "./rootless-podman.js";
import { inRange, sandboxUidPool } from "./sandbox-uids.js";

/** An engine under attack and the host paths that must stay out of its sandboxes. */
export interface OpenedEngine {
  /** The engine's name in the suite (`podman (rootless)`), for messages. */
  readonly label: string;
  readonly engine: SandboxEngine;
  /** Host paths private to the worker (its engine socket); none may exist inside. */
  readonly privatePaths: readonly string[];
  /**
   * Whether the engine applies memory and pids cgroup limits. False only for rootless Podman on
   * cgroup v1, whose readiness probe refuses it for that reason (see rootless.test.ts).
   */
  readonly cgroupLimits: boolean;
  /** Whether a helper may run as `uid` inside: a root worker's rootful container runs it as its own pool uid, bwrap maps 10001. */
  readonly isSandboxUid: (uid: number) => boolean;
  close(): Promise<void>;
}

const uid10001 = (uid: number): boolean => uid === 10001;
const poolUid =
  (range: HostUidRange | undefined) =>
  (uid: number): boolean =>
    range !== undefined && inRange(range, uid);

export interface EngineUnderAttack {
  readonly name: string;
  /** Opens the engine able to run `images` (references from the operator's allowlist). */
  open(images: readonly string[]): Promise<OpenedEngine>;
}

/** Rootful Podman through its API, on a private service socket the worker supervises. */
const podman: EngineUnderAttack = {
  name: "podman (rootful)",
  async open() {
    const stateDir = await mkdtemp(join(tmpdir(), "reviewbot-attack-podman-"));
    const uids = await sandboxUidPool();
    const engine = await createContainerEngine({ kind: "podman", stateDir, containersConf: CONTAINERS_CONF, uids });
    return {
      label: podman.name,
      engine,
      privatePaths: [join(stateDir, "podman.sock"), stateDir],
      cgroupLimits: true,
      isSandboxUid: poolUid(uids.range),
      async close() {
        await engine.close();
        await rm(stateDir, { recursive: true, force: true });
      },
    };
  },
};

/** Docker through its API, on a private dockerd the worker starts (its own socket, exec root, data root). */
const docker: EngineUnderAttack = {
  name: "docker (rootful)",
  async open() {
    const fixture = await openDockerEngine("attack");
    return {
      label: docker.name,
      engine: fixture.engine,
      privatePaths: [fixture.socketPath, fixture.stateDir, TEST_DOCKER_DATA_ROOT],
      cgroupLimits: true,
      isSandboxUid: poolUid(fixture.engine.uidRange),
      close: () => fixture.close(),
    };
  },
};

/** bubblewrap as a run's own host uid (10001 inside), over the images' extracted filesystems. */
const bwrap: EngineUnderAttack = {
  name: "bwrap",
  async open(images) {
    const cacheDir = await reachableTempDir("attack-bwrap");
    const engine = await BwrapEngine.create({ images, cacheDir });
    return {
      label: bwrap.name,
      engine,
      privatePaths: [cacheDir],
      cgroupLimits: engine.cgroupLimits,
      isSandboxUid: uid10001,
      async close() {
        await engine.close();
        await rm(cacheDir, { recursive: true, force: true });
      },
    };
  },
};

/** Podman run by an unprivileged user of its own, as a worker without root would run it. */
const rootlessPodman: EngineUnderAttack = {
  name: "podman (rootless)",
  async open(images) {
    const rootless = await startRootlessPodman(images);
    try {
      const engine = await createContainerEngine({
        kind: "podman",
        socketPath: rootless.socketPath,
        stateDir: rootless.stateDir,
        containersConf: CONTAINERS_CONF,
      });
      return {
        label: rootlessPodman.name,
        engine,
        privatePaths: [rootless.socketPath, rootless.stateDir],
        cgroupLimits: false,
        // Uids of the user's namespace, one per run (leased by container name on its daemon).
        isSandboxUid: poolUid(engine.uidRange),
        async close() {
          await engine.close();
          await rootless.dispose();
        },
      };
    } catch (err) {
      await rootless.dispose();
      throw err;
    }
  },
};

/** The engines the resource attacks run on: those whose readiness probe passes on this host. */
export const ENGINES_UNDER_ATTACK: readonly EngineUnderAttack[] = [podman, docker, bwrap];

/**
 * The engines the isolation attacks (filesystem, environment, network, privilege, trust) run on:
 * also rootless Podman, which keeps every isolation property here but, on cgroup v1, no limits.
 */
export const ISOLATION_ENGINES: readonly EngineUnderAttack[] = [podman, docker, bwrap, rootlessPodman];
