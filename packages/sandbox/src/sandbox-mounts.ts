import { realpath, stat } from "node:fs/promises";
import { posix } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import type { SandboxMount } from "./sandbox-spec.js";

/** Sandbox paths a mount may use; nothing else of the image can be shadowed. */
const TARGET_PREFIXES = ["/opt/reviewbot/", "/run/reviewbot/"] as const;
const MAX_MOUNTS = 8;

/**
 * Checks a spec's extra mounts before anything is created: each source an existing directory
 * whose real path lies strictly under `root` (the engine's state directory, so never a path a
 * repository named), each target a normalised absolute path under `/opt/reviewbot/` or
 * `/run/reviewbot/`, no target twice and none inside another. Returns the mounts unchanged.
 *
 * @throws AppError `POLICY_DENIED` naming the mount and the reason.
 */
export async function checkMounts(mounts: readonly SandboxMount[], root: string | undefined): Promise<readonly SandboxMount[]> {
  if (mounts.length === 0) return mounts;
  if (root === undefined) throw new AppError("POLICY_DENIED", "mounts: this engine has no state directory to mount from");
  if (mounts.length > MAX_MOUNTS) throw new AppError("POLICY_DENIED", `mounts: at most ${MAX_MOUNTS} are allowed`);
  const realRoot = await realpath(root);
  const targets: string[] = [];
  for (const [index, mount] of mounts.entries()) {
    const problem = targetProblem(mount.target, targets) ?? (await sourceProblem(mount.source, realRoot));
    if (problem !== undefined) throw new AppError("POLICY_DENIED", `mounts[${index}]: ${problem}`);
    targets.push(mount.target);
  }
  return mounts;
}

function targetProblem(target: string, taken: readonly string[]): string | undefined {
  if (posix.normalize(target) !== target || target.endsWith("/")) return `target ${JSON.stringify(target)} is not a normalised absolute path`;
  if (!TARGET_PREFIXES.some((prefix) => target.startsWith(prefix))) return `target ${target} is not under ${TARGET_PREFIXES.join(" or ")}`;
  if (target.includes(",") || target.includes(":")) return `target ${target} holds a comma or colon`;
  const clash = taken.find((other) => other === target || other.startsWith(`${target}/`) || target.startsWith(`${other}/`));
  return clash === undefined ? undefined : `target ${target} overlaps ${clash}`;
}

async function sourceProblem(source: string, realRoot: string): Promise<string | undefined> {
  if (!posix.isAbsolute(source) || posix.normalize(source) !== source) return `source ${JSON.stringify(source)} is not a normalised absolute path`;
  // A comma or colon would be read as the next field of a bind specification.
  if (source.includes(",") || source.includes(":")) return `source ${source} holds a comma or colon`;
  const real = await realpath(source).catch(() => null);
  if (real === null) return `source ${source} does not exist`;
  if (real !== source) return `source ${source} is reached through a symbolic link`;
  if (!real.startsWith(`${realRoot}/`)) return `source ${source} is not under the engine's state directory`;
  const info = await stat(real);
  return info.isDirectory() ? undefined : `source ${source} is not a directory`;
}
