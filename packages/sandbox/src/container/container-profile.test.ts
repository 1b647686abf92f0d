import { describe, expect, it } from "vitest";
import { containerProfile } from "./container-profile.js";
import type { SandboxSpec } from "../sandbox-spec.js";

const spec: SandboxSpec = {
  argv: ["true"],
  image: "localhost/reviewbot/base:latest",
  worktree: "/srv/work/tree",
  cwd: ".",
  env: {},
  limits: { timeoutMs: 1000, memoryBytes: 1 << 27, cpus: 1, pids: 64, outputBytes: 1024, tmpfsBytes: 1 << 23, nofile: 256, fsizeBytes: 1 << 25 },
  labels: { jobId: "job", helper: "helper" },
  mounts: [
    { source: "/state/deps/ro", target: "/opt/reviewbot/deps", writable: false },
    { source: "/state/deps/rw", target: "/run/reviewbot/out", writable: true },
  ],
};
const options = { seccomp: "/state/seccomp.json", deadline: 0, stdinFile: "/state/stdin-1/stdin", user: "700000001:700000001" };

describe("containerProfile", () => {
  it("gives Podman's API Binds mode strings with every mount flag", () => {
    const host = containerProfile(spec, { ...options, engine: "podman" }).HostConfig ?? {};
    expect(host.Binds).toEqual([
      "/srv/work/tree:/work:ro,nosuid,nodev",
      "/state/stdin-1/stdin:/run/reviewbot/stdin:ro,noexec,nosuid,nodev",
      "/state/deps/ro:/opt/reviewbot/deps:ro,nosuid,nodev",
      "/state/deps/rw:/run/reviewbot/out:rw,noexec,nosuid,nodev",
    ]);
    expect(host.Mounts).toBeUndefined();
  });

  it("gives Docker's API Mounts (it refuses nosuid/nodev/noexec in a Binds mode) and no Binds", () => {
    const host = containerProfile(spec, { ...options, engine: "docker" }).HostConfig ?? {};
    expect(host.Binds).toBeUndefined();
    expect(host.Mounts?.map(({ Source, Target, ReadOnly }) => `${Source}:${Target}:${String(ReadOnly)}`)).toEqual([
      "/srv/work/tree:/work:true",
      "/state/stdin-1/stdin:/run/reviewbot/stdin:true",
      "/state/deps/ro:/opt/reviewbot/deps:true",
      "/state/deps/rw:/run/reviewbot/out:false",
    ]);
    expect(host.Mounts?.every((mount) => mount.Type === "bind" && mount.BindOptions?.Propagation === "rprivate")).toBe(true);
  });

  it.each(["podman", "docker"] as const)("applies the rest of the profile identically on %s", (engine) => {
    const host = containerProfile(spec, { ...options, engine }).HostConfig ?? {};
    expect(host).toMatchObject({
      NetworkMode: "none",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges", "seccomp=/state/seccomp.json"],
      Tmpfs: { "/tmp": `rw,noexec,nosuid,nodev,size=${1 << 23}` },
      Memory: 1 << 27,
      MemorySwap: 1 << 27,
      PidsLimit: 64,
      IpcMode: "private",
      Privileged: false,
    });
    expect(host.Ulimits?.map((limit) => limit.Name)).toEqual(["nofile", "nproc", "fsize", "core"]);
  });
});
