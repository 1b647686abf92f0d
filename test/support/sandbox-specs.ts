import { fileURLToPath } from "node:url";
import type { SandboxLimits, SandboxSpec } from "@reviewbot/sandbox/sandbox-spec";

/** The repository's Podman configuration (runc, cgroupfs, explicit ulimits). */
export const CONTAINERS_CONF = fileURLToPath(new URL("../../infra/podman/containers.conf", import.meta.url));
export const BASE_IMAGE = "localhost/reviewbot/base:latest";

/** Small limits, so that attacks on them are cheap to run. */
export const TEST_LIMITS: SandboxLimits = Object.freeze({
  timeoutMs: 10_000,
  memoryBytes: 128 * 1024 * 1024,
  cpus: 1,
  pids: 64,
  outputBytes: 256 * 1024,
  tmpfsBytes: 8 * 1024 * 1024,
  nofile: 256,
  fsizeBytes: 32 * 1024 * 1024,
});

/** A helper run of `argv` in the base image over `worktree`. */
export function sandboxSpec(worktree: string, argv: readonly string[], overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return {
    argv,
    image: BASE_IMAGE,
    worktree,
    cwd: ".",
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8" },
    limits: TEST_LIMITS,
    labels: { jobId: "test-job", helper: "test-helper" },
    ...overrides,
  };
}

/** `sh -c script` as a spec. */
export function shellSpec(worktree: string, script: string, overrides: Partial<SandboxSpec> = {}): SandboxSpec {
  return sandboxSpec(worktree, ["sh", "-c", script], overrides);
}
