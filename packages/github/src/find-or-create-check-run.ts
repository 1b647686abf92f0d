import type { Octokit } from "@octokit/core";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";
import type { RedisClient } from "@reviewbot/queue/redis-client";
import { checkRunStateKey, readCheckRunState, writeCheckRunState, type CheckRunState } from "./check-run-state.js";
import { withRedisLock } from "./with-redis-lock.js";

export const CHECK_RUN_NAME = "reviewbot";

export interface CheckRunTarget {
  readonly octokit: Octokit;
  readonly redis: RedisClient;
  readonly keys: RedisKeyspace;
  readonly appId: number;
  readonly repositoryId: number;
  readonly owner: string;
  readonly repo: string;
  readonly headSha: string;
  /**
   * The review job the run belongs to, sent as its `external_id`: one run per review job, so a
   * re-requested review of the same head gets a fresh run while a retried job updates its own.
   */
  readonly reviewJobId: string;
}

interface ListedCheckRun {
  readonly id: number;
  readonly status: string;
  readonly app?: { readonly id?: number } | null;
  readonly external_id?: string | null;
}

/**
 * Returns the `reviewbot` check run of a review job (on its head), creating it (`in_progress`) if
 * there is none. Redis remembers its id; when Redis has forgotten, GitHub's list of the commit's
 * check runs (this App's runs named `reviewbot` whose `external_id` is the job) is asked before
 * creating. Creation happens under a Redis lock, so two processes never create two runs for a job.
 */
export async function findOrCreateCheckRun(target: CheckRunTarget): Promise<CheckRunState & { id: number }> {
  const key = checkRunStateKey(target.keys, target.repositoryId, target.reviewJobId);
  const known = await readCheckRunState(target.redis, key);
  if (known.id !== null) return { ...known, id: known.id };
  const lockKey = `${target.keys.ours}:lock:check-run:${target.repositoryId}:${target.reviewJobId}`;
  return withRedisLock(target.redis, lockKey, { ttlMs: 30_000, waitMs: 45_000 }, async () => {
    const again = await readCheckRunState(target.redis, key);
    if (again.id !== null) return { ...again, id: again.id };
    const { data } = (await target.octokit.request("GET /repos/{owner}/{repo}/commits/{ref}/check-runs", {
      owner: target.owner,
      repo: target.repo,
      ref: target.headSha,
      check_name: CHECK_RUN_NAME,
      filter: "all",
      per_page: 100,
    })) as { data: { check_runs: ListedCheckRun[] } };
    // Only a run this App created can be updated by it; a same-named run of another App is ignored.
    const existing = data.check_runs.find((run) => run.app?.id === target.appId && run.external_id === target.reviewJobId);
    let id: number;
    let status: "in_progress" | "completed";
    if (existing === undefined) {
      const created = (await target.octokit.request("POST /repos/{owner}/{repo}/check-runs", {
        owner: target.owner,
        repo: target.repo,
        name: CHECK_RUN_NAME,
        head_sha: target.headSha,
        external_id: target.reviewJobId,
        status: "in_progress",
        started_at: new Date().toISOString(),
      })) as { data: { id: number } };
      id = created.data.id;
      status = "in_progress";
    } else {
      id = existing.id;
      status = existing.status === "completed" ? "completed" : "in_progress";
    }
    await writeCheckRunState(target.redis, key, { id, status });
    return { ...(await readCheckRunState(target.redis, key)), id };
  });
}
