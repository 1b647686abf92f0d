import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Writable, type Duplex } from "node:stream";
import type Dockerode from "dockerode";
import { AppError } from "@reviewbot/core/errors";
import { cancelledResult, isAborted } from "../cancelled-result.js";
import { reapExpiredContainers } from "./container-janitor.js";
import { containerProfile, type ContainerProfileOptions } from "./container-profile.js";
import { exitStatus } from "../exit-status.js";
import { OomWatch } from "./oom-watch.js";
import { OutputBudget } from "../output-budget.js";
import { checkMounts } from "../sandbox-mounts.js";
import type { EngineService } from "./engine-service.js";
import type { HostUidRange } from "../uids/host-uid-pool.js";
import { bindNoexec } from "./noexec-bind.js";
import { ownTree } from "../uids/own-tree.js";
import { createAsRunUid, handsOverMounts, type RunUid, type RunUids } from "../uids/run-uid.js";
import { ownIds } from "../uids/sandbox-user.js";
import type { EngineHealth, ImageIdentity, InstallSupport, SandboxEngine, SandboxResult, SandboxSpec } from "../sandbox-spec.js";

export interface ContainerEngineOptions {
  readonly name: "podman" | "docker";
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
  readonly name: "podman" | "docker";
  readonly sandboxed = true;
  /** The worker-owned directory a spec's `mounts` must lie under (the deps cache, the registry proxy's). */
  readonly stateDir: string;
  readonly installSupport: InstallSupport;
  /** Where runs get their own uids; undefined: every helper runs as uid 10001. */
  readonly uids: RunUids | undefined;
  readonly #docker: Dockerode;
  readonly #seccomp: string;
  readonly #service: EngineService | undefined;
  readonly #memoryCgroupDir: ((containerId: string) => string) | undefined;
  readonly #live = new Set<Dockerode.Container>();
  readonly #removals = new Set<Promise<boolean>>();
  readonly #runs = new Set<Promise<unknown>>();
  #janitor: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: ContainerEngineOptions) {
    this.name = options.name;
    this.#docker = options.docker;
    this.#seccomp = options.seccomp;
    this.#service = options.service;
    this.stateDir = options.stateDir;
    this.installSupport = { stateDir: options.stateDir, imageId: (reference) => this.imageId(reference) };
    this.#memoryCgroupDir = options.memoryCgroupDir;
    this.uids = options.uids;
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
   * a writable mount is the run's for the run and the worker's again before this resolves.
   */
  run(spec: SandboxSpec): Promise<SandboxResult> {
    const running = this.#run(spec);
    this.#runs.add(running);
    void running.catch(() => undefined).finally(() => this.#runs.delete(running));
    return running;
  }

  async #run(spec: SandboxSpec): Promise<SandboxResult> {
    const startedAt = performance.now();
    // A closed engine's service is stopped: a run would only start it again, unsupervised.
    if (this.#closed) throw new AppError("SANDBOX_UNAVAILABLE", `the ${this.name} engine is closed`);
    if (isAborted(spec.signal)) return cancelledResult(this.name, true);
    await checkMounts(spec.mounts ?? [], this.stateDir);
    await this.#service?.ensureRunning();
    const deadline = Date.now() + spec.limits.timeoutMs;
    const stdinDir = spec.stdin === undefined ? null : await mkdtemp(join(this.stateDir, "stdin-"));
    try {
      const stdinFile = stdinDir === null ? undefined : join(stdinDir, "stdin");
      if (stdinFile !== undefined && spec.stdin !== undefined) await writeFile(stdinFile, spec.stdin, { mode: 0o644 });
      const profile = { engine: this.name, seccomp: this.#seccomp, deadline, ...(stdinFile === undefined ? {} : { stdinFile }) };
      const writable = (spec.mounts ?? []).filter((mount) => mount.writable).map((mount) => mount.source);
      const { container, uid } = await createAsRunUid(this.uids, writable.length > 0, (user, name) => this.#create(spec, { ...profile, user }, name));
      return await this.#runCreated(container, uid, writable, spec, startedAt);
    } finally {
      if (stdinDir !== null) await rm(stdinDir, { recursive: true, force: true });
    }
  }

  async #runCreated(container: Dockerode.Container, uid: RunUid, writable: readonly string[], spec: SandboxSpec, startedAt: number): Promise<SandboxResult> {
    this.#live.add(container);
    const undo: (() => Promise<void>)[] = [];
    try {
      // Mounted only at start: the run's writable mounts become its own before.
      await Promise.all(writable.map((dir) => ownTree(dir, uid, { topOnly: true })));
      // Docker cannot be told noexec for a bind: the source becomes a noexec mount of its own.
      if (this.name === "docker") for (const dir of writable) undo.push(await bindNoexec(dir));
      // Creating takes tens of milliseconds: an abort or a close meanwhile must not start the container.
      if (isAborted(spec.signal) || this.#closed) return cancelledResult(this.name, true, elapsedMs(startedAt));
      return await this.#attachAndRun(container, spec, startedAt);
    } finally {
      this.#live.delete(container);
      const removal = this.#remove(container);
      // A container that could not be removed may still hold processes of the uid: it is kept (the
      // lease until the worker exits; a daemon name until the container goes) for no other run.
      void removal.then((removed) => (removed ? uid.release() : undefined));
      if (writable.length > 0) {
        // The run's processes are gone with its container: what it wrote is the worker's again,
        // and an ordinary directory, before anything (the deps cache's rename) reads it.
        await removal;
        if (uid.own) await Promise.all(writable.map((dir) => ownTree(dir, ownIds())));
        for (const unmount of undo) await unmount();
      }
    }
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
    await Promise.allSettled([...this.#live].map((container) => kill(container)));
    // A killed run schedules its container's removal only once it has read the exit: wait for the
    // runs first, or their removals start after the service below is stopped (a container left).
    await Promise.allSettled([...this.#runs]);
    await Promise.allSettled([...this.#removals]);
    await this.#service?.stop();
  }

  async #create(spec: SandboxSpec, profile: ContainerProfileOptions, name: string | undefined): Promise<Dockerode.Container> {
    try {
      return await this.#docker.createContainer({ ...containerProfile(spec, profile), ...(name === undefined ? {} : { name }) });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const missing = /no such image|image not known|not found/i.test(reason);
      if (missing) throw new AppError("IMAGE_MISSING", `image ${spec.image} is not present on this host (build it with infra/images/build.sh)`, { cause: err });
      throw new AppError("SANDBOX_UNAVAILABLE", `${this.name} could not create a container: ${reason}`, { cause: err });
    }
  }

  async #attachAndRun(container: Dockerode.Container, spec: SandboxSpec, startedAt: number): Promise<SandboxResult> {
    // Set by callbacks while the run awaits (an object, so that no read is narrowed to `false`).
    const how = { timedOut: false, cancelled: false, killedByUs: false };
    const stop = (): void => {
      how.killedByUs = true;
      void kill(container);
    };
    const cancel = (): void => {
      how.cancelled = true;
      stop();
    };
    const budget = new OutputBudget(spec.limits.outputBytes, stop);
    const stream = (await container.attach({ stream: true, stdout: true, stderr: true, hijack: true })) as unknown as Duplex;
    // Checked and subscribed in one synchronous step: no abort can fall between the two.
    if (isAborted(spec.signal)) {
      stream.destroy();
      return cancelledResult(this.name, true, elapsedMs(startedAt));
    }
    spec.signal?.addEventListener("abort", cancel, { once: true });
    const ended = Promise.race([once(stream, "end"), once(stream, "close")]);
    const stdout = sink((chunk) => {
      budget.stdout(chunk);
    });
    const stderr = sink((chunk) => {
      budget.stderr(chunk);
    });
    this.#docker.modem.demuxStream(stream, stdout, stderr);
    const timer = setTimeout(() => {
      how.timedOut = true;
      stop();
    }, spec.limits.timeoutMs);
    let oomWatch: OomWatch | undefined;
    try {
      await container.start();
      // A deadline, an abort or a close while the start was in flight found nothing running to kill.
      if (how.killedByUs || this.#closed) await kill(container);
      if (this.#memoryCgroupDir !== undefined) oomWatch = new OomWatch(this.#memoryCgroupDir(container.id));
      await ended;
    } finally {
      spec.signal?.removeEventListener("abort", cancel);
      clearTimeout(timer);
      stream.destroy();
    }
    const oomSeen = (await oomWatch?.stop()) ?? false;
    const state = await finalState(container);
    const output = budget.collected();
    const status = exitStatus(state.ExitCode);
    return {
      engine: this.name,
      sandboxed: true,
      ...status,
      timedOut: how.timedOut,
      cancelled: how.cancelled,
      // Podman 4 on cgroup v1 never sets OOMKilled: the cgroup's own counter is read while the
      // container runs. Where it cannot be, note that inside a sandbox the only senders of SIGKILL
      // are the kernel's OOM killer, us, and the process itself (which can only fake its own
      // failure), so a SIGKILL we did not send is reported as an OOM kill.
      oomKilled: oomSeen || state.OOMKilled || (status.signal === "SIGKILL" && !how.killedByUs),
      outputTruncated: budget.truncated,
      stdout: output.stdout,
      stderr: output.stderr,
      durationMs: elapsedMs(startedAt),
    };
  }

  // Settles (never rejects) once the container is gone (true) or could not be removed (false):
  // the janitor removes whatever could not be removed here.
  #remove(container: Dockerode.Container): Promise<boolean> {
    const removal = container
      .remove({ force: true, v: true })
      .then(
        () => true,
        () => false,
      )
      .finally(() => this.#removals.delete(removal));
    this.#removals.add(removal);
    return removal;
  }
}

async function finalState(container: Dockerode.Container): Promise<{ ExitCode: number; OOMKilled: boolean }> {
  let info = await container.inspect();
  // The streams can close a moment before the engine records the exit.
  if (info.State.Running) {
    await container.wait();
    info = await container.inspect();
  }
  return info.State;
}

async function kill(container: Dockerode.Container): Promise<void> {
  await container.kill({ signal: "SIGKILL" }).catch(() => undefined);
}

function elapsedMs(startedAt: number): number {
  return Math.round(performance.now() - startedAt);
}

function sink(onChunk: (chunk: Buffer) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      onChunk(chunk);
      callback();
    },
  });
}
