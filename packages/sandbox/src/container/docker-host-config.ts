import type { HostConfig } from "dockerode";
import type { ProfileFilesystems } from "./profile-filesystems.js";

/**
 * The profile's filesystems as Docker's API (20.10) takes them: `HostConfig.Mounts` binds with
 * `ReadOnly` and a private propagation. Docker refuses `nosuid`/`nodev`/`noexec` in a `Binds` mode
 * string ("invalid mode") and its bind mounts have no field for them (daemon/oci_linux.go mounts a
 * bind `rbind` plus `ro` only): what they guard is held otherwise (docs/sandbox.md, "Docker"):
 * no-new-privileges makes a setuid bit inert, and with no capabilities and Docker's device cgroup
 * a device node cannot be made or opened. `/tmp` keeps all three flags: Docker's `Tmpfs` takes them.
 */
export function dockerHostConfig(filesystems: ProfileFilesystems): Pick<HostConfig, "Mounts" | "Tmpfs"> {
  return {
    Mounts: filesystems.binds.map(({ source, target, readOnly }) => ({
      Type: "bind",
      Source: source,
      Target: target,
      ReadOnly: readOnly,
      BindOptions: { Propagation: "rprivate" },
    })),
    Tmpfs: { [filesystems.tmpfs.target]: `rw,noexec,nosuid,nodev,size=${filesystems.tmpfs.bytes}` },
  };
}
