import type { EngineName } from "@reviewbot/core/engine-names";

/** Hard limits applied to one sandbox run; the operator's ceilings narrowed by the repo config. */
export interface SandboxLimits {
  readonly timeoutMs: number;
  readonly memoryBytes: number;
  readonly cpus: number;
  readonly pids: number;
  /** stdout and stderr together; the sandbox is killed once it is exceeded. */
  readonly outputBytes: number;
  readonly tmpfsBytes: number;
  readonly nofile: number;
  readonly fsizeBytes: number;
}

/** Who a run belongs to, for labels, the audit line and the janitor. */
export interface SandboxLabels {
  readonly jobId: string;
  readonly helper: string;
  readonly repo?: string;
  readonly pr?: number;
}

/**
 * A host directory the engine mounts besides the work tree: an install hook's target (writable)
 * or its cached result for a helper (read-only), and the registry proxy's directory. Only the
 * container engine accepts mounts, and only of directories under its own state directory.
 */
export interface SandboxMount {
  /** Absolute host path of a directory under the engine's state directory (no symlink on the way). */
  readonly source: string;
  /** Absolute path in the sandbox, under `/opt/reviewbot/` or `/run/reviewbot/`. */
  readonly target: string;
  readonly writable: boolean;
}

export interface SandboxSpec {
  /** argv inside the sandbox; never interpreted by a shell of ours. */
  readonly argv: readonly string[];
  /** Image reference from the operator's allowlist (containers run it; bwrap runs its rootfs). */
  readonly image: string;
  /** Host path of the worker-created work tree, mounted read-only at /work. */
  readonly worktree: string;
  /** Working directory relative to /work (already checked by the policy). */
  readonly cwd: string;
  /** The whole environment of the sandboxed process (built by the policy's allowlist). */
  readonly env: Readonly<Record<string, string>>;
  readonly stdin?: string | Buffer;
  readonly limits: SandboxLimits;
  readonly labels: SandboxLabels;
  /** Extra directories to mount (see {@link SandboxMount}); engines that cannot honour them refuse. */
  readonly mounts?: readonly SandboxMount[];
  /**
   * Cancels the run: once it aborts the sandbox is killed (SIGKILL, as at the deadline) and the
   * run resolves with `cancelled: true`; a run whose signal has already aborted starts nothing.
   */
  readonly signal?: AbortSignal;
}

export interface SandboxResult {
  readonly engine: EngineName;
  readonly sandboxed: boolean;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  /** The spec's signal aborted: the run was killed, or never started when it was aborted before. */
  readonly cancelled: boolean;
  readonly oomKilled: boolean;
  readonly outputTruncated: boolean;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly durationMs: number;
}

/** What an engine's health check found: it can start sandboxes, or why it cannot. */
export type EngineHealth = { readonly healthy: true } | { readonly healthy: false; readonly reason: string };

/** What the deps cache keys an install on: the image's content id, not its mutable tag. */
export interface ImageIdentity {
  imageId(reference: string): Promise<string>;
}

/**
 * What an engine that accepts `mounts` (a container engine) offers install hooks: the directory
 * every mount must lie under, where the registry proxy and the deps cache live, and the image ids
 * the deps cache keys installs on.
 */
export interface InstallSupport extends ImageIdentity {
  readonly stateDir: string;
}

/** One fresh sandbox per `run`, always destroyed afterwards. */
export interface SandboxEngine {
  readonly name: EngineName;
  /**
   * False only for the escape hatch of mode `off`: the helper runs as a plain child of the worker,
   * in the work tree itself (no mount point, no isolation). Every report records it.
   */
  readonly sandboxed: boolean;
  /**
   * True when the engine can run an install hook: a writable mount (under its state directory),
   * handed to a host uid of the run's own, so that no install shares a uid with another run.
   */
  readonly runsInstalls: boolean;
  /** Present when the engine accepts `mounts`; absent, it refuses them and install hooks cannot start. */
  readonly installSupport?: InstallSupport;
  run(spec: SandboxSpec): Promise<SandboxResult>;
  /**
   * A cheap check that the engine can still start sandboxes (the container API answers `_ping`;
   * bwrap, prlimit, the run cgroups and the image rootfs are there). Starts no sandbox, never
   * rejects, and gives up when `signal` aborts. The readiness probe proved isolation at start-up;
   * this tells a worker's `/readyz` when the engine has gone away since (it used to stay ready).
   */
  health(signal: AbortSignal): Promise<EngineHealth>;
  /** Stops what the engine started (a supervised podman service) and removes leftovers. */
  close(): Promise<void>;
}
