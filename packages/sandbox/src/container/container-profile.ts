import { posix } from "node:path";
import type { ContainerCreateOptions, HostConfig } from "dockerode";
import { dockerHostConfig } from "./docker-host-config.js";
import { podmanHostConfig } from "./podman-host-config.js";
import type { ProfileFilesystems } from "./profile-filesystems.js";
import type { SandboxSpec } from "../sandbox-spec.js";
import type { ContainerEngineName } from "@reviewbot/core/engine-names";

/** Labels on every container we create; the janitor finds ours by them. */
export const LABELS = {
  managed: "io.reviewbot.managed",
  job: "io.reviewbot.job",
  helper: "io.reviewbot.helper",
  deadline: "io.reviewbot.deadline",
} as const;

export const WORKTREE_MOUNT = "/work";
const NPROC_HEADROOM = 8;
/** At or below the worker's hard limit, which the runtime cannot raise (no CAP_SYS_RESOURCE). */
const NPROC_CEILING = 4096;

export interface ContainerProfileOptions {
  /** Whose API receives the options: the two take mounts in different forms. */
  readonly engine: ContainerEngineName;
  /** `seccomp=` value in the form the engine expects: a file path for Podman, JSON for Docker. */
  readonly seccomp: string;
  /** Epoch ms after which the janitor may remove the container whatever its state. */
  readonly deadline: number;
  /** Host file holding the helper's stdin, when it has one. */
  readonly stdinFile?: string;
  /** `uid:gid` the helper runs as: the run's own host uid, or `SANDBOX_IDS` (uids/sandbox-ids.ts). */
  readonly user: string;
}

/** Where a run's stdin file is mounted; the image's own sh redirects it (no interpolation). */
export const STDIN_MOUNT = "/run/reviewbot/stdin";

/**
 * The hardened create options for one helper run (docs/architecture.md, layer 3: every subprocess
 * is sandboxed): no network, read-only root, no capabilities, no-new-privileges, our seccomp
 * profile, a non-root numeric user, the work tree read-only, a small noexec /tmp, memory without
 * extra swap, CPU, pids and rlimits, a private IPC namespace, an init process, no TTY, no log kept
 * (output is streamed to us and capped).
 */
export function containerProfile(spec: SandboxSpec, options: ContainerProfileOptions): ContainerCreateOptions {
  const { limits } = spec;
  const nproc = Math.min(limits.pids * NPROC_HEADROOM, NPROC_CEILING);
  return {
    Image: spec.image,
    Entrypoint: [],
    // The Engine API can only feed stdin through an attached connection that docker-modem leaves
    // unflushed until written to; a read-only file is simpler and has no such race.
    Cmd: options.stdinFile === undefined ? [...spec.argv] : ["sh", "-c", `exec "$@" < ${STDIN_MOUNT}`, "sh", ...spec.argv],
    User: options.user,
    WorkingDir: posix.join(WORKTREE_MOUNT, spec.cwd),
    Env: Object.entries(spec.env).map(([name, value]) => `${name}=${value}`),
    Labels: {
      [LABELS.managed]: "true",
      [LABELS.job]: spec.labels.jobId,
      [LABELS.helper]: spec.labels.helper,
      [LABELS.deadline]: String(options.deadline),
    },
    NetworkDisabled: true,
    Tty: false,
    AttachStdin: false,
    OpenStdin: false,
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: {
      NetworkMode: "none",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges", `seccomp=${options.seccomp}`],
      ...hostConfig(options.engine, profileFilesystems(spec, options.stdinFile)),
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes,
      NanoCpus: Math.round(limits.cpus * 1e9),
      PidsLimit: limits.pids,
      // The worker lacks CAP_SYS_RESOURCE: nofile and nproc must be explicit and within its own
      // hard limits, or the runtime fails with "error setting rlimit" (docs/architecture.md,
      // 'Host facts': explicit nofile and nproc).
      Ulimits: [
        { Name: "nofile", Soft: limits.nofile, Hard: limits.nofile },
        // RLIMIT_NPROC counts every process of the run's uid on the host (every helper's, when all
        // run as 10001): a backstop only. The per-container cap is PidsLimit.
        { Name: "nproc", Soft: nproc, Hard: nproc },
        { Name: "fsize", Soft: limits.fsizeBytes, Hard: limits.fsizeBytes },
        { Name: "core", Soft: 0, Hard: 0 },
      ],
      IpcMode: "private",
      Init: true,
      Privileged: false,
      LogConfig: { Type: "none", Config: {} },
    },
  };
}

function hostConfig(engine: ContainerEngineName, filesystems: ProfileFilesystems): Pick<HostConfig, "Binds" | "Mounts" | "Tmpfs"> {
  return engine === "docker" ? dockerHostConfig(filesystems) : podmanHostConfig(filesystems);
}

function profileFilesystems(spec: SandboxSpec, stdinFile: string | undefined): ProfileFilesystems {
  return {
    binds: [
      // Only the worker-created work tree, never a path taken from the repository.
      { source: spec.worktree, target: WORKTREE_MOUNT, readOnly: true, noexec: false },
      ...(stdinFile === undefined ? [] : [{ source: stdinFile, target: STDIN_MOUNT, readOnly: true, noexec: true }]),
      // Checked by checkMounts: worker-made directories under the engine's state directory.
      // An install target is writable but noexec; a helper's deps are read-only.
      ...(spec.mounts ?? []).map(({ source, target, writable }) => ({ source, target, readOnly: !writable, noexec: writable })),
    ],
    tmpfs: { target: "/tmp", bytes: spec.limits.tmpfsBytes },
  };
}
