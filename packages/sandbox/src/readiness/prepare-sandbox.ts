import { chmod, mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxMode } from "@reviewbot/policy/sandbox-mode";
import { BwrapEngine } from "../bwrap/bwrap-engine.js";
import { createContainerEngine } from "../container/create-container-engine.js";
import { DEFAULT_SANDBOX_UIDS, HostUidPool, type HostUidRange } from "../uids/host-uid-pool.js";
import { NoneEngine } from "../none-engine.js";
import { probeEngine, type ProbeReport } from "./readiness-probe.js";
import type { SandboxEngineName } from "@reviewbot/core/engine-names";
import type { SandboxEngine, SandboxLimits } from "../sandbox-spec.js";
import { isRootWorker } from "../uids/sandbox-user.js";
import { selectEngine, type Candidate, type Selection } from "./select-engine.js";

/** How often a container engine looks for containers that outlived their run. */
const JANITOR_INTERVAL_MS = 5 * 60 * 1000;

export interface SandboxSetup {
  readonly mode: SandboxMode;
  /** Engines to try, strongest first. */
  readonly engines: readonly SandboxEngineName[];
  /** Worker-owned directory (private Podman socket and Docker daemon, seccomp profile, bwrap rootfs cache). */
  readonly stateDir: string;
  readonly containersConf: string;
  readonly podmanSocket?: string;
  readonly dockerSocket?: string;
  /** Every allowlisted image reference (bwrap extracts each one's rootfs up front). */
  readonly images: readonly string[];
  /** The image the readiness probe runs in. */
  readonly probeImage: string;
  readonly limits: SandboxLimits;
  /** Host uids a root worker's sandboxes run as, one per run in flight (default `DEFAULT_SANDBOX_UIDS`). */
  readonly uids?: HostUidRange;
}

export interface PreparedSandbox {
  readonly selection: Selection;
  /** One report per engine tried, in order (a creation failure is a failed report). */
  readonly reports: readonly ProbeReport[];
}

export interface ProbedEngines {
  /** Engines that could be created, with their probe (passed or not), in order. */
  readonly candidates: readonly Candidate[];
  /** One report per engine tried, in order (a creation failure is a failed report). */
  readonly reports: readonly ProbeReport[];
}

/** Creates each configured engine and runs its readiness probe. The caller closes the engines. */
export async function probeSandboxEngines(setup: SandboxSetup): Promise<ProbedEngines> {
  // bubblewrap's unprivileged user must traverse it to reach the extracted image rootfs.
  await mkdir(setup.stateDir, { recursive: true, mode: 0o711 });
  await chmod(setup.stateDir, 0o711);
  const candidates: Candidate[] = [];
  const reports: ProbeReport[] = [];
  // One pool for every engine: a root worker's runs never share a host uid, whichever engine runs them.
  const uids = isRootWorker() ? HostUidPool.create(setup.uids ?? DEFAULT_SANDBOX_UIDS) : Promise.resolve(undefined);
  uids.catch(() => undefined); // reported by each engine below
  for (const name of setup.engines) {
    const startedAt = performance.now();
    try {
      const engine = await createEngine(name, setup, await uids);
      // In the state directory, which lies in the clone cache: an engine reached through a socket
      // (a Compose worker's) resolves the work tree on its host, as for the helpers': it cannot see
      // the worker container's temp dir.
      const probe = await probeEngine(engine, { image: setup.probeImage, limits: setup.limits, workDir: setup.stateDir });
      candidates.push({ engine, probe });
      reports.push(probe);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      reports.push({ engine: name, ok: false, checks: [], reason, durationMs: Math.round(performance.now() - startedAt) });
    }
  }
  return { candidates, reports };
}

/**
 * Probes the configured engines and selects one under the sandbox mode (see selectEngine); the
 * engines not selected are closed. Under `require` with no engine ready this throws
 * SANDBOX_UNAVAILABLE naming every engine's reason.
 */
export async function prepareSandbox(setup: SandboxSetup): Promise<PreparedSandbox> {
  const none = new NoneEngine();
  if (setup.mode === "off") return { selection: selectEngine("off", [], none), reports: [] };
  const { candidates, reports } = await probeSandboxEngines(setup);
  try {
    const selection = selectEngine(setup.mode, candidates, none, reports);
    await Promise.all(candidates.filter((c) => c.engine !== selection.engine).map((c) => c.engine.close()));
    return { selection, reports };
  } catch (err) {
    await Promise.all(candidates.map((c) => c.engine.close()));
    throw err;
  }
}

function createEngine(name: SandboxEngineName, setup: SandboxSetup, uids: HostUidPool | undefined): Promise<SandboxEngine> {
  if (name === "bwrap") return BwrapEngine.create({ images: setup.images, cacheDir: setup.stateDir, ...(uids === undefined ? {} : { uids }) });
  // Without a configured socket the engine runs its own private service (dockerd only as root),
  // rootful since the worker is root: it runs helpers as the pool's uids. A configured socket's
  // daemon may be shared with workers in other containers or hosts: its runs lease uids by
  // container name there (in the user's namespace for a rootless daemon).
  const socketPath = name === "podman" ? setup.podmanSocket : setup.dockerSocket;
  return createContainerEngine({
    kind: name,
    janitorIntervalMs: JANITOR_INTERVAL_MS,
    stateDir: join(setup.stateDir, name),
    containersConf: setup.containersConf,
    ...(socketPath === undefined ? (uids === undefined ? {} : { uids }) : { socketPath, ...(setup.uids === undefined ? {} : { daemonUids: setup.uids }) }),
  });
}
