import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { AppError } from "@reviewbot/core/errors";

const run = promisify(execFile);

/**
 * Makes `dir` a mount of its own, `nosuid,nodev,noexec`, and returns the undo. Docker's API (20.10)
 * has no field for those flags on a bind and refuses them in a `Binds` mode; a bind takes the
 * flags of the mount its source is on, so a writable source mounted this way is noexec inside the
 * container too. Needs root (the worker that runs its own dockerd is).
 *
 * @throws AppError `SANDBOX_UNAVAILABLE` when the mount cannot be made: the run must not go on
 *   with an executable writable mount.
 */
export async function bindNoexec(dir: string): Promise<() => Promise<void>> {
  try {
    await run("mount", ["--bind", dir, dir]);
  } catch (err) {
    throw refusal(dir, err);
  }
  try {
    await run("mount", ["-o", "remount,bind,nosuid,nodev,noexec", dir]);
  } catch (err) {
    await run("umount", [dir]).catch(() => undefined);
    throw refusal(dir, err);
  }
  return async () => {
    await run("umount", [dir]);
  };
}

/** Unmounts every mount point at or under `dir`, deepest first: what a killed worker's runs left. */
export async function unmountUnder(dir: string): Promise<void> {
  const points = (await readFile("/proc/self/mountinfo", "utf8"))
    .split("\n")
    .map((line) => unescapeMountPath(line.split(" ")[4] ?? ""))
    .filter((point) => point === dir || point.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const point of points) await run("umount", [point]);
}

// mountinfo writes space, tab, newline and backslash in a path as octal escapes.
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_match, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function refusal(dir: string, err: unknown): AppError {
  const reason = (err as { stderr?: string }).stderr?.trim() || (err instanceof Error ? err.message : String(err));
  return new AppError("SANDBOX_UNAVAILABLE", `cannot mount ${dir} noexec for Docker (a writable mount must not be executable): ${reason}`, { cause: err });
}
