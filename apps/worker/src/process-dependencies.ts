import type { RedisClient } from "@reviewbot/queue/redis-client";
import type { Logger } from "@reviewbot/core/logger";
import type { CloneCache } from "@reviewbot/overlay/clone-cache";
import type { OperatorPolicy } from "@reviewbot/policy/operator-policy";
import type { FilterMode } from "@reviewbot/review/findings/diff-filter";
import type { SecretScrubber } from "@reviewbot/core/scrubber";
import type { InstallHookRuntime } from "@reviewbot/review/pipeline/install-hook-runtime";
import type { SandboxEngine } from "@reviewbot/sandbox/sandbox-spec";
import type { JobClient } from "./job-client.js";
import type { ReviewSource } from "./review-source.js";
import type { RunningJobs } from "./running-jobs.js";
import type { WorkerMetrics } from "./worker-metrics.js";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

/** What the review processor runs with, built once in `main.ts`. */
export interface ProcessDependencies {
  /** A non-blocking command connection (PR leases, PR state): the worker's Redis user reaches nothing else of ours. */
  readonly redis: RedisClient;
  /** Where the queue's keys and ours live (REVIEWBOT_REDIS_PREFIX). */
  readonly keys: RedisKeyspace;
  /** The api's worker routes: claim a job, report how it ended. */
  readonly jobs: JobClient;
  readonly source: ReviewSource;
  readonly cache: CloneCache;
  readonly engine: SandboxEngine;
  readonly operator: OperatorPolicy;
  /** The root logger: each job logs through its own child (`HeldJob.logger`). */
  readonly logger: Logger;
  readonly running: RunningJobs;
  readonly metrics: WorkerMetrics;
  /** The PR lease's expiry; renewed every third of it while the job runs. */
  readonly leaseTtlMs: number;
  readonly filterMode: FilterMode;
  /** How long a job waits before trying again for a lease another job of its PR holds. */
  readonly leaseRetryMs: number;
  /** The registry proxy and deps cache, when the operator turned install hooks on and they can run here. */
  readonly installHooks?: InstallHookRuntime;
  /** Holds this worker's secrets and each job's token: scrubbed from what the model is sent. */
  readonly scrubber: SecretScrubber;
  /** The review's wall-clock deadline (REVIEWBOT_REVIEW_DEADLINE_MS): the AI review ends before it. */
  readonly reviewDeadlineMs: number;
}
