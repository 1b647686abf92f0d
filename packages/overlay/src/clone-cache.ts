import { createHash, randomUUID } from "node:crypto";
import { chmod, mkdir, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AppError } from "@reviewbot/core/errors";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import { writeAskpass, type GitCredentials } from "./askpass.js";
import { acquireLock } from "./cache-lock.js";
import type { CheckoutLimits } from "./checkout-limits.js";
import { fetchPull, type RefRequest } from "./fetch-pull.js";
import { assertRefName, isFullSha, normaliseRemote } from "./git-input.js";
import { collectStale, type CollectReport } from "./janitor.js";

export type { CollectReport } from "./janitor.js";
export type { GitContext } from "./run-git.js";
import { materialiseWorktree } from "./materialise-worktree.js";
import { computePullDiff, type PullDiff } from "./pull-diff.js";
import { deleteRefs, jobRefPrefix } from "./job-refs.js";
import { runGit, type GitContext } from "./run-git.js";
import { assertTreeWithinLimits } from "./tree-guard.js";
import { applyTrustedOverlay, type ConfigCommit, type OverlayResult } from "./trusted-overlay.js";
import { inheritedPath } from "@reviewbot/core/inherited-env";

export interface CloneCacheOptions {
  /** Directory owned by the worker; shared safely by every worker process on the host. */
  readonly root: string;
  readonly allowedProtocols: readonly string[];
  readonly gitTimeoutMs: number;
  readonly lockWaitMs: number;
  readonly limits: CheckoutLimits;
  readonly scrubber?: SecretScrubber;
}

export interface CheckoutRequest {
  /** https URL, file:// URL or absolute path of the repository that holds both sides. */
  readonly remote: string;
  readonly head: RefRequest;
  readonly base: RefRequest;
  /**
   * The ref whose head commit's `.ai/` is trusted: the repository's default branch (the worker
   * always sends it). Without it `.ai/` comes from the base commit, which is only right when the
   * caller trusts the base (the CLI reviewing refs of its own repository).
   */
  readonly config?: RefRequest;
  readonly credentials?: GitCredentials;
  /** Shown in directory names for operators (a job id); sanitised, never trusted as a path. */
  readonly label?: string;
}

export interface Checkout {
  readonly id: string;
  /** The work tree: PR head files with the trusted commit's `.ai/`; contains no `.git`. */
  readonly dir: string;
  readonly headSha: string;
  readonly baseSha: string;
  readonly overlay: OverlayResult;
  readonly diff: PullDiff;
  /**
   * The mirror holding the job's objects, for reading them by SHA (never through `dir`, whose
   * files the PR controls). Valid until `release()`: the job's refs keep those objects alive.
   */
  readonly git: { readonly context: GitContext; readonly gitDir: string };
  /** Removes the work tree and the job's refs. Idempotent. */
  release(): Promise<void>;
}

/**
 * One bare mirror per repository and one work tree per job. Fetches run under a per-mirror
 * cross-process lock; each job has its own refs, index and directory, so concurrent jobs on one
 * host (or several worker processes sharing the cache) never touch each other's state.
 */
export class CloneCache {
  readonly #options: CloneCacheOptions;
  readonly #context: GitContext;

  constructor(options: CloneCacheOptions) {
    this.#options = Object.freeze({ ...options });
    this.#context = {
      cwd: this.#path("home"),
      home: this.#path("home"),
      path: inheritedPath(),
      allowedProtocols: options.allowedProtocols,
      timeoutMs: options.gitTimeoutMs,
      ...(options.scrubber === undefined ? {} : { scrubber: options.scrubber }),
    };
  }

  /** Creates the layout and removes what a crashed process left behind. */
  async init(): Promise<CollectReport> {
    await mkdir(this.#options.root, { recursive: true, mode: 0o711 });
    for (const dir of ["home", "templates", "mirrors"]) await mkdir(this.#path(dir), { recursive: true, mode: 0o700 });
    // Sandboxes run as an unprivileged user that must reach the work tree: job directories can be
    // traversed (not listed), and their random names are the only way in.
    await mkdir(this.#path("jobs"), { recursive: true, mode: 0o711 });
    await chmod(this.#options.root, 0o711);
    await chmod(this.#path("jobs"), 0o711);
    await writeAskpass(this.#path("askpass"));
    return this.collect();
  }

  /** Removes orphaned job directories and refs, and mirrors unused for `mirrorIdleMs`. */
  collect(mirrorIdleMs = 7 * 24 * 3600 * 1000): Promise<CollectReport> {
    return collectStale(this.#context, { root: this.#options.root, lockWaitMs: this.#options.lockWaitMs, mirrorIdleMs });
  }

  async checkout(request: CheckoutRequest): Promise<Checkout> {
    const remote = normaliseRemote(request.remote, this.#options.allowedProtocols);
    const head = validateRef("head", request.head);
    const base = validateRef("base", request.base);
    const config = request.config === undefined ? undefined : validateRef("config", request.config);
    const id = `${(request.label ?? "job").replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}-${randomUUID()}`;
    const jobDir = this.#path("jobs", id);
    const mirror = this.#path("mirrors", `${createHash("sha256").update(remote).digest("hex").slice(0, 32)}.git`);
    const refPrefix = jobRefPrefix(id);
    // Lock before the directory exists, so a janitor never sees an unlocked job directory.
    const releaseJob = await acquireLock(jobDir, this.#options.lockWaitMs);
    await mkdir(jobDir, { mode: 0o711 });
    await writeFile(join(jobDir, "mirror"), mirror);
    let released = false;
    const release = async (): Promise<void> => {
      if (released) return;
      released = true;
      await this.#withMirror(mirror, () => deleteRefs(this.#context, mirror, refPrefix)).catch(() => undefined);
      await rm(jobDir, { recursive: true, force: true });
      await releaseJob();
    };
    try {
      const fetched = await this.#withMirror(mirror, async () => {
        await this.#ensureMirror(mirror);
        const askpassPath = this.#path("askpass");
        const fetchRequest = { remote, head, base, askpassPath, refPrefix, ...(config === undefined ? {} : { config }) };
        return fetchPull(this.#context, mirror, request.credentials === undefined ? fetchRequest : { ...fetchRequest, credentials: request.credentials });
      });
      await assertTreeWithinLimits(this.#context, mirror, fetched.headSha, this.#options.limits);
      const dir = join(jobDir, "tree");
      await materialiseWorktree(this.#context, mirror, fetched.headSha, dir, join(jobDir, "index"));
      // Asked for a config ref and did not get its commit: fail closed, never fall back to the base.
      const trusted: ConfigCommit | null =
        config === undefined
          ? { from: "base", ref: base.ref, sha: fetched.baseSha }
          : fetched.configSha === null
            ? null
            : { from: "ref", ref: config.ref, sha: fetched.configSha };
      const overlay = await applyTrustedOverlay(this.#context, mirror, dir, trusted);
      const diff = await computePullDiff(this.#context, mirror, fetched.baseSha, fetched.headSha);
      const git = { context: this.#context, gitDir: mirror };
      return { id, dir, headSha: fetched.headSha, baseSha: fetched.baseSha, overlay, diff, git, release };
    } catch (err) {
      await release();
      throw err;
    }
  }

  async #withMirror<T>(mirror: string, action: () => Promise<T>): Promise<T> {
    const unlock = await acquireLock(mirror, this.#options.lockWaitMs);
    try {
      return await action();
    } finally {
      await unlock();
    }
  }

  async #ensureMirror(mirror: string): Promise<void> {
    await runGit(this.#context, mirror, ["init", "--bare", "--quiet", `--template=${this.#path("templates")}`]);
    const now = new Date();
    await utimes(mirror, now, now);
  }

  #path(...parts: string[]): string {
    return join(this.#options.root, ...parts);
  }
}

function validateRef(side: string, ref: RefRequest): RefRequest {
  assertRefName(`${side}.ref`, ref.ref);
  if (ref.sha !== undefined && !isFullSha(ref.sha)) {
    throw new AppError("POLICY_DENIED", `${side}.sha: ${JSON.stringify(ref.sha)} is not a full commit SHA`);
  }
  return ref;
}
