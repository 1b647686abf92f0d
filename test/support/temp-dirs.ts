import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

export type MakeTempDir = (label: string) => Promise<string>;

/**
 * Registers an afterEach hook that removes every directory made through the returned function
 * during the test, so a failing test leaves nothing behind in os.tmpdir().
 */
export function useTempDirs(): MakeTempDir {
  const made: string[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });
  return async (label) => {
    const dir = await mkdtemp(join(tmpdir(), `reviewbot-${label}-`));
    made.push(dir);
    return dir;
  };
}

/**
 * A temporary directory every sandbox uid (a run's own host uid, or the containers' 10001)
 * can enter and read: mkdtemp makes 0700. The caller removes it.
 */
export async function reachableTempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `reviewbot-${label}-`));
  await chmod(dir, 0o755);
  return dir;
}
