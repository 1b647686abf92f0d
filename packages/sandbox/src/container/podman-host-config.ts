import type { HostConfig } from "dockerode";
import type { ProfileFilesystems } from "./profile-filesystems.js";

/**
 * The profile's filesystems as Podman's API takes them: `Binds` mode strings carrying the mount
 * flags (`ro|rw`, `noexec`, `nosuid`, `nodev`), and `/tmp` a size-limited tmpfs.
 */
export function podmanHostConfig(filesystems: ProfileFilesystems): Pick<HostConfig, "Binds" | "Tmpfs"> {
  return {
    Binds: filesystems.binds.map(
      ({ source, target, readOnly, noexec }) => `${source}:${target}:${readOnly ? "ro" : "rw"}${noexec ? ",noexec" : ""},nosuid,nodev`,
    ),
    Tmpfs: { [filesystems.tmpfs.target]: `rw,noexec,nosuid,nodev,size=${filesystems.tmpfs.bytes}` },
  };
}
