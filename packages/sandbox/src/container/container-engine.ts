import type Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import { reapExpiredContainers } from "./container-janitor.js";
import { runInContainer, type RunContext } from "./container-run.js";
import { RunsInFlight } from "./runs-in-flight.js";
import type { EngineService } from "./engine-service.js";
import type { HostUidRange } from "../uids/host-uid-pool.js";
import { handsOverMounts, type RunUids } from "../uids/run-uid.js";
import type { EngineHealth, ImageIdentity, InstallSupport, SandboxEngine, SandboxResult, SandboxSpec } from "../sandbox-spec.js";
import type { ContainerEngineName } from "@reviewbot/core/engine-names";

export interface ContainerEngineOptions {
  readonly name: ContainerEngineName;
  readonly docker: Dockerode;
  /** `seccomp=` value: a profile path for Podman's API, the profile JSON for Docker's. */
  readonly seccomp: string;
  /**
   * Worker-owned directory for per-run stdin files (bind-mounted read-only); a spec's `mounts`
   * must lie under it (the deps cache and the registry proxy's directory).
   */
  readonly stateDir: string;
  /**
   * Where a container's memory cgroup lives on the host, when the engine's layout is known (rootful
   * Podman with cgroupfs on v1: `/sys/fs/cgroup/memory/libpod_parent/libpod-<id>`); lets the engine
   * see OOM kills of any process in the container, not only of the helper itself.
   */
  readonly memoryCgroupDir?: (containerId: string) => string;
  /** This worker's own supervised engine (a Podman service or a Docker daemon), when it runs one. */
  readonly service?: EngineService;
  /**
   * Where each run gets a uid of its own: a host pool (a root worker's own rootful engine) or the
   * daemon's container names (an engine behind a configured socket). Without it every helper runs
   * as uid 10001.
   */
  readonly uids?: RunUids;
}

/**
 * Runs each helper in a fresh container through the Docker Engine API (Podman's or Docker's).
 * The output streams are attached before start and their end marks the exit, which avoids the
 * engine's polling `wait` (the slow part of a naive create/start/wait). Containers are removed
 * in the background after the result is known; `close()` waits for those removals.
 */
export class ContainerEngine implements SandboxEngine, ImageIdentity {
  readonly name: ContainerEngineName;
  readonly sandboxed = true;
  /** The worker-owned directory a spec's `mounts` must lie under (the deps cache, the registry proxy's). */
  readonly stateDir: string;
  readonly installSupport: InstallSupport;
  /** Where runs get their own uids; undefined: every helper runs as uid 10001. */
  readonly uids: RunUids | undefined;
  readonly #docker: Dockerode;
  readonly #service: EngineService | undefined;
  readonly #inFlight = new RunsInFlight();
  readonly #context: RunContext;
  #janitor: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: ContainerEngineOptions) {
    this.name = options.name;
    this.#docker = options.docker;
    this.#service = options.service;
    this.stateDir = options.stateDir;
    this.installSupport = { stateDir: options.stateDir, imageId: (reference) => this.imageId(reference) };
    this.uids = options.uids;
    this.#context = {
      engine: options.name,
      docker: options.docker,
      seccomp: options.seccomp,
      stateDir: options.stateDir,
      memoryCgroupDir: options.memoryCgroupDir,
      service: options.service,
      uids: options.uids,
      inFlight: this.#inFlight,
      closed: () => this.#closed,
    };
  }

  /** An install's writable mount goes to a uid of its own: false without a source of uids, or one the worker cannot hand mounts to. */
  get runsInstalls(): boolean {
    return handsOverMounts(this.uids);
  }

  /** The uids runs get, one per run in flight (as the daemon sees them); undefined: uid 10001 for all. */
  get uidRange(): HostUidRange | undefined {
    return this.uids?.kind === "host-pool" ? this.uids.pool.range : this.uids?.names.range;
  }

  /**
   * Runs `spec` in a fresh container as the run's own uid (when the engine has a source of them);
   * a writable mount is the run's for the run and the worker's again before this resolves. A run
   * whose output Podman lost is run once more (see runInContainer).
   */
  run(spec: SandboxSpec): Promise<SandboxResult> {
    return this.#inFlight.track(runInContainer(spec, this.#context));
  }

  /**
   * The content id (`sha256:…`) of a local image.
   *
   * @throws AppError `IMAGE_MISSING` when the image is not present.
   */
  async imageId(reference: string): Promise<string> {
    await this.#service?.ensureRunning();
    try {
      return (await this.#docker.getImage(reference).inspect()).Id;
    } catch (err) {
      throw new AppError("IMAGE_MISSING", `image ${reference} is not present on this host`, { cause: err });
    }
  }

  /**
   * Removes our containers that outlived their deadline (a crashed worker's) now, then every
   * `intervalMs` until close. Returns the ids removed by the first pass.
   */
  async startJanitor(intervalMs: number): Promise<string[]> {
    await this.#service?.ensureRunning();
    const removed = await reapExpiredContainers(this.#docker);
    clearInterval(this.#janitor);
    this.#janitor = setInterval(() => void reapExpiredContainers(this.#docker).catch(() => undefined), intervalMs).unref();
    return removed;
  }

  /**
   * Unhealthy when closed, when this worker's own engine service is not running (it is started
   * again here: the supervisor restarts what it supervises rather than wait for the next run), or
   * when the engine's API does not answer `_ping` before `signal` aborts.
   */
  async health(signal: AbortSignal): Promise<EngineHealth> {
    if (this.#closed) return { healthy: false, reason: `the ${this.name} engine is closed` };
    const down = this.#service?.problem() ?? null;
    if (down !== null) {
      void this.#service?.ensureRunning().catch(() => undefined);
      return { healthy: false, reason: down };
    }
    try {
      // dockerode 4 hands ping's `abortSignal` to the request; @types/dockerode 4.0.2 omits the options.
      const ping = this.#docker.ping.bind(this.#docker) as (options: { abortSignal: AbortSignal }) => Promise<unknown>;
      await ping({ abortSignal: signal });
      return { healthy: true };
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      return { healthy: false, reason: `the ${this.name} API did not answer _ping: ${reason}` };
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#janitor);
    await this.#inFlight.drain();
    await this.#service?.stop();
  }
}
