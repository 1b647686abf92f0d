import { createHash, randomUUID } from "node:crypto";
import { lstat, mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { unmountUnder } from "../container/noexec-bind.js";

/** Unfinished entries older than this at start-up were left by a crashed worker (no install lasts an hour). */
const STALE_TMP_MS = 60 * 60 * 1000;
const COMPLETE = "complete";
const DEPS = "deps";

/** What an install's result depends on, and so what its cache entry is keyed by. */
export interface DepsKeyParts {
  /** The repository's remote, as the review was asked for it. */
  readonly remote: string;
  /** The helper image's content id (`sha256:…`), not its tag. */
  readonly imageId: string;
  /** The checked install argv (from the base commit's config). */
  readonly argv: readonly string[];
}

/** sha256 of the parts, hex: the entry's directory name. */
export function depsKey(parts: DepsKeyParts): string {
  return createHash("sha256")
    .update(JSON.stringify([parts.remote, parts.imageId, parts.argv]))
    .digest("hex");
}

/** How an entry was obtained: `dir` is the read-only deps directory, or null when the install failed. */
export interface DepsEntry {
  readonly dir: string | null;
  readonly cached: boolean;
}

/**
 * Install results on the worker's disk: `<root>/<key>/deps` (what the install wrote) and
 * `<root>/<key>/complete` (the marker, written by the worker, outside what the sandbox could
 * write, and only after the install succeeded). An install writes into `<root>/tmp-<uuid>/deps`;
 * the whole entry is renamed into place in one step, so a reader never sees half an install and
 * a crashed install leaves only a `tmp-` directory that the next start-up removes.
 */
export class DepsCache {
  readonly root: string;
  /**
   * An empty directory: an install's `/work`. An install never sees the checkout, so nothing of a
   * PR can change what it installs (the cache key does not hold the PR).
   */
  readonly emptyDir: string;
  readonly #pending = new Map<string, Promise<DepsEntry>>();

  constructor(root: string) {
    this.root = root;
    this.emptyDir = join(root, "empty");
  }

  /** Creates the root (0700: only bind mounts reach into it) and removes stale unfinished entries. */
  async init(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await mkdir(this.emptyDir, { recursive: true, mode: 0o755 });
    const now = Date.now();
    for (const name of await readdir(this.root)) {
      if (!name.startsWith("tmp-")) continue;
      const info = await stat(join(this.root, name)).catch(() => null);
      if (info === null || now - info.mtimeMs <= STALE_TMP_MS) continue;
      // A worker killed during a Docker install left the target mounted noexec (noexec-bind.ts).
      await unmountUnder(join(this.root, name));
      await rm(join(this.root, name), { recursive: true, force: true });
    }
  }

  /** The completed entry's deps directory, or null. */
  async lookup(key: string): Promise<string | null> {
    const entry = join(this.root, key);
    const [marker, deps] = await Promise.all([lstat(join(entry, COMPLETE)).catch(() => null), lstat(join(entry, DEPS)).catch(() => null)]);
    return marker?.isFile() === true && deps?.isDirectory() === true ? join(entry, DEPS) : null;
  }

  /**
   * The entry for `key`: cached, or made by `install(dir)`, which gets an empty directory to mount
   * writable (the engine gives it to the run's user for the run) and resolves true on success.
   * Concurrent calls for one key in this process share one install; across processes the first
   * rename wins.
   */
  obtain(key: string, install: (dir: string) => Promise<boolean>): Promise<DepsEntry> {
    const pending = this.#pending.get(key);
    if (pending !== undefined) return pending;
    const made = this.#obtain(key, install).finally(() => this.#pending.delete(key));
    this.#pending.set(key, made);
    return made;
  }

  async #obtain(key: string, install: (dir: string) => Promise<boolean>): Promise<DepsEntry> {
    const cached = await this.lookup(key);
    if (cached !== null) return { dir: cached, cached: true };
    const tmp = join(this.root, `tmp-${randomUUID()}`);
    try {
      await mkdir(join(tmp, DEPS), { recursive: true, mode: 0o755 });
      if (!(await install(join(tmp, DEPS)))) return { dir: null, cached: false };
      await writeFile(join(tmp, COMPLETE), `${JSON.stringify({ key, completedAt: new Date().toISOString() })}\n`, { mode: 0o644 });
      await rename(tmp, join(this.root, key)).catch(async (err: unknown) => {
        // Another worker process finished the same install first: use theirs.
        if ((await this.lookup(key)) === null) throw err;
      });
      const dir = await this.lookup(key);
      return { dir, cached: false };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}
