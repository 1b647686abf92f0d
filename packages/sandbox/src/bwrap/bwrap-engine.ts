import { randomUUID } from "node:crypto";
import { access, constants } from "node:fs/promises";
import { AppError } from "@reviewbot/core/errors";
import { bwrapArgs } from "./bwrap-args.js";
import { BWRAP_BINARIES, bwrapCommand } from "./bwrap-command.js";
import { closeInheritedFds } from "./bwrap-inherited-fds.js";
import { BwrapProcess } from "./bwrap-process.js";
import { DEFAULT_CGROUP_LAYOUT, runCgroupDir, type CgroupLayout } from "./cgroup-limits.js";
import { cancelledResult, isAborted } from "../cancelled-result.js";
import { cgroupV1Available, reapStaleRunCgroups, RunCgroup } from "./cgroup-v1.js";
import { refuseMounts } from "../refuse-mounts.js";
import { prepareImageRootfs, type ImageRootfs } from "./image-rootfs.js";
import type { EngineHealth, SandboxEngine, SandboxResult, SandboxSpec } from "../sandbox-spec.js";
import { HostUidPool } from "../uids/host-uid-pool.js";
import { assertReachableBy, isRootWorker, sandboxUserFor } from "../uids/sandbox-user.js";
import { compileSeccompFilter } from "./seccomp-bpf.js";

/** Run cgroups older than this at start-up were left by a crashed worker (no run lasts an hour). */
const STALE_RUN_CGROUP_MS = 60 * 60 * 1000;

export interface BwrapEngineOptions {
  /** Image references runs may name (the operator allowlist's values); extracted by `create`. */
  readonly images: readonly string[];
  /** Where extracted rootfs are cached; it and its ancestors must be searchable by any sandbox uid. */
  readonly cacheDir: string;
  /** The host uids a root worker runs bwrap as, one per run in flight; default `DEFAULT_SANDBOX_UIDS`. */
  readonly uids?: HostUidPool;
  readonly cgroupLayout?: CgroupLayout;
  /** Told when removing a run's cgroups failed; the run's result is returned all the same. */
  readonly onCleanupError?: (err: unknown, runId: string) => void;
}

/**
 * Runs each spec in a fresh bubblewrap sandbox whose `/` is the helper image's filesystem, as an
 * unprivileged host user (never host root: a root worker gives each run its own leased uid, no two
 * runs in flight share one), under prlimit rlimits and, for a root worker on cgroup v1, per-run
 * memory, pids and CPU cgroups joined before bwrap starts. Every result is sandboxed.
 */
export class BwrapEngine implements SandboxEngine {
  readonly name = "bwrap";
  readonly sandboxed = true;
  /** bwrap mounts no extra directory (`refuseMounts`). */
  readonly runsInstalls = false;
  /** The host uids runs get (a root worker), or undefined: bwrap runs as the worker itself. */
  readonly uids: HostUidPool | undefined;
  /** False when runs get no memory, pids or CPU limit (not root, or no cgroup v1); the probe says so. */
  readonly cgroupLimits: boolean;
  /** Descriptors the worker inherited without close-on-exec and `create` closed (log them). */
  readonly closedInheritedFds: readonly number[];
  readonly #images: ReadonlyMap<string, ImageRootfs>;
  readonly #layout: CgroupLayout;
  readonly #seccomp = compileSeccompFilter();
  readonly #onCleanupError: (err: unknown, runId: string) => void;
  readonly #live = new Set<BwrapProcess>();
  readonly #runs = new Set<Promise<unknown>>();
  #closed = false;

  private constructor(
    options: BwrapEngineOptions,
    uids: HostUidPool | undefined,
    cgroups: boolean,
    images: ReadonlyMap<string, ImageRootfs>,
    closedFds: readonly number[],
  ) {
    this.uids = uids;
    this.cgroupLimits = cgroups;
    this.#images = images;
    this.closedInheritedFds = closedFds;
    this.#layout = options.cgroupLayout ?? DEFAULT_CGROUP_LAYOUT;
    this.#onCleanupError = options.onCleanupError ?? (() => undefined);
  }

  /**
   * Opens a root worker's uid pool, detects cgroup v1, extracts every image's rootfs (the only step
   * that uses the Podman CLI; runs never do) and closes descriptors the worker inherited without
   * close-on-exec.
   *
   * @throws AppError `SANDBOX_UNAVAILABLE` when the sandbox would run as root, the uid range
   *   overlaps a host user, bwrap or prlimit is missing, or the cache is out of reach of the
   *   sandbox's uid; `IMAGE_MISSING` when an image is.
   */
  static async create(options: BwrapEngineOptions): Promise<BwrapEngine> {
    const uids = isRootWorker() ? (options.uids ?? (await HostUidPool.create())) : undefined;
    // No host file belongs to a pool uid: what one of them reaches, they all do.
    const user = sandboxUserFor(uids === undefined ? undefined : { uid: uids.range.first, gid: uids.range.first });
    for (const binary of Object.values(BWRAP_BINARIES)) {
      await access(binary, constants.X_OK).catch((err: unknown) => {
        throw new AppError("SANDBOX_UNAVAILABLE", `${binary} is missing or not executable`, { cause: err });
      });
    }
    const layout = options.cgroupLayout ?? DEFAULT_CGROUP_LAYOUT;
    const cgroups = await cgroupV1Available(layout);
    if (cgroups) await reapStaleRunCgroups(layout, STALE_RUN_CGROUP_MS);
    const images = new Map<string, ImageRootfs>();
    for (const reference of new Set(options.images)) {
      const prepared = await prepareImageRootfs(reference, { cacheDir: options.cacheDir });
      await assertReachableBy(prepared.rootfs, user);
      images.set(reference, prepared);
    }
    // bwrap hands every descriptor without close-on-exec to the sandbox.
    const closedFds = closeInheritedFds();
    return new BwrapEngine(options, uids, cgroups, images, closedFds);
  }

  /**
   * Runs `spec` to completion: killed at its deadline, once its output budget is spent or when its
   * signal aborts (an already aborted signal starts nothing); its cgroups removed and leftovers
   * killed however it ends.
   *
   * @throws AppError `IMAGE_MISSING` (image not prepared), `SANDBOX_UNAVAILABLE` (engine closed,
   *   bwrap or cgroup failure) or `POLICY_DENIED` (a cwd outside /work, an invalid argv or
   *   environment).
   */
  run(spec: SandboxSpec): Promise<SandboxResult> {
    const run = this.#run(spec);
    this.#runs.add(run);
    void run.catch(() => undefined).finally(() => this.#runs.delete(run));
    return run;
  }

  /**
   * Unhealthy when closed, when bwrap, prlimit or sh is no longer executable, when the cgroup v1
   * hierarchies the runs' limits need are gone, or when an image's extracted rootfs was removed:
   * each is what a run needs besides the kernel, checked with a stat (no sandbox is started).
   */
  async health(): Promise<EngineHealth> {
    const unhealthy = (reason: string): EngineHealth => ({ healthy: false, reason });
    if (this.#closed) return unhealthy("the bwrap engine is closed");
    for (const binary of Object.values(BWRAP_BINARIES)) {
      if (!(await reachable(binary, constants.X_OK))) return unhealthy(`${binary} is missing or not executable`);
    }
    if (this.cgroupLimits && !(await cgroupV1Available(this.#layout))) return unhealthy("the cgroup v1 memory, pids or cpu hierarchy is gone");
    for (const image of this.#images.values()) {
      if (!(await reachable(image.rootfs, constants.F_OK))) return unhealthy(`the rootfs of ${image.reference} is gone (${image.rootfs})`);
    }
    return { healthy: true };
  }

  /** Kills every run in flight and waits for their cleanup; idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const running of this.#live) running.kill();
    await Promise.allSettled([...this.#runs]);
  }

  async #run(spec: SandboxSpec): Promise<SandboxResult> {
    const startedAt = performance.now();
    this.#assertOpen();
    if (isAborted(spec.signal)) return cancelledResult(this.name, true);
    refuseMounts(spec, this.name);
    const image = this.#images.get(spec.image);
    if (image === undefined) {
      const prepared = [...this.#images.keys()].join(", ");
      throw new AppError("IMAGE_MISSING", `helper image ${spec.image} was not prepared for bwrap (prepared: ${prepared})`);
    }
    const runId = randomUUID();
    const cgroupDirs = this.cgroupLimits ? { memory: runCgroupDir(this.#layout, "memory", runId), pids: runCgroupDir(this.#layout, "pids", runId) } : undefined;
    const args = bwrapArgs({
      rootfs: image.rootfs,
      worktree: spec.worktree,
      cwd: spec.cwd,
      env: spec.env,
      argv: spec.argv,
      tmpfsBytes: spec.limits.tmpfsBytes,
      cgroupDirs,
    });
    const lease = await this.uids?.acquire();
    // Set in a callback (an object, so that no read is narrowed to `true`).
    const cleanup = { ok: true };
    try {
      const user = sandboxUserFor(lease);
      await assertReachableBy(spec.worktree, user);
      const cgroup = this.cgroupLimits ? await RunCgroup.create(this.#layout, runId, spec.limits, user) : undefined;
      try {
        this.#assertOpen();
        // Making the cgroups took a moment: an abort meanwhile must not start bwrap. No await
        // between this check and start, where the process subscribes to the signal.
        if (isAborted(spec.signal)) return cancelledResult(this.name, true, Math.round(performance.now() - startedAt));
        const sandbox = BwrapProcess.start({
          command: bwrapCommand(args, spec.argv, spec.limits, cgroup?.procsFiles ?? []),
          user,
          seccomp: this.#seccomp,
          stdin: spec.stdin,
          timeoutMs: spec.limits.timeoutMs,
          outputBytes: spec.limits.outputBytes,
          ...(spec.signal === undefined ? {} : { signal: spec.signal }),
          killOthers: () => void cgroup?.killAll().catch(() => undefined),
        });
        this.#live.add(sandbox);
        const exit = await sandbox.done.finally(() => this.#live.delete(sandbox));
        const oomKilled = (await cgroup?.oomKilled().catch(() => false)) ?? false;
        return { engine: this.name, sandboxed: true, oomKilled, ...exit };
      } finally {
        await cgroup?.remove().catch((err: unknown) => {
          cleanup.ok = false;
          this.#onCleanupError(err, runId);
        });
      }
    } finally {
      // bwrap's PID namespace died with it, and the cgroup's leftovers were killed: the uid is free.
      // A cgroup that could not be removed may still hold processes of the uid: the lease is kept
      // (until the worker exits) rather than handed to another run.
      if (cleanup.ok) await lease?.release();
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new AppError("SANDBOX_UNAVAILABLE", "the bwrap engine is closed");
  }
}

function reachable(path: string, mode: number): Promise<boolean> {
  return access(path, mode).then(
    () => true,
    () => false,
  );
}
