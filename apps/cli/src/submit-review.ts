import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { Queue } from "bullmq";
import { AppError } from "@reviewbot/core/errors";
import { parseOrThrow } from "@reviewbot/core/parse-or-throw";
import { enqueueReview, type EnqueueOutcome } from "@reviewbot/queue/enqueue-review";
import { REVIEW_QUEUE } from "@reviewbot/queue/queue-names";
import type { QueueSeal } from "@reviewbot/queue/queue-seal";
import { createRedisConnection } from "@reviewbot/queue/redis-connection";
import { ReviewJob } from "@reviewbot/contracts/review-job";
import type { RedisTarget } from "@reviewbot/queue/redis-target";
import { inheritedPath } from "@reviewbot/core/inherited-env";
import { resolveCommit } from "@reviewbot/overlay/run-git";
import type { RedisKeyspace } from "@reviewbot/queue/redis-keyspace";

export interface SubmitArgs {
  /** The directory of local repositories a worker with REVIEWBOT_SOURCE=local reads. */
  readonly repoDir: string;
  readonly repository: string;
  readonly pullNumber: number;
  /** The base branch (the branch the PR targets). */
  readonly base: string;
  /** The repository's default branch, whose head's `.ai/` the worker trusts; default: `base`. */
  readonly defaultBranch?: string;
  /** The PR head: any ref or SHA of the local repository. */
  readonly head: string;
}

export interface Submission {
  readonly job: ReviewJob;
  readonly outcome: EnqueueOutcome;
}

/** `git rev-parse` of a local repository's ref. */
const GIT_TIMEOUT_MS = 30_000;

/** The installation every local submission belongs to (fair share treats them as one tenant). */
const LOCAL_INSTALLATION_ID = 1;

/**
 * `reviewbot submit`: resolves base and head to SHAs in `<repoDir>/<repository>` and enqueues the
 * review on the real queue with enqueueReview (supersession and fair share as for webhooks), as
 * the api does: sealed, with the api's Redis role. An operator's tool, it holds what the api holds.
 */
export async function submitReview(args: SubmitArgs, redis: RedisTarget, keys: RedisKeyspace, seal: QueueSeal): Promise<Submission> {
  const repo = resolve(args.repoDir, args.repository);
  const inside = relative(resolve(args.repoDir), repo);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) throw new AppError("USAGE", "--repository must be owner/name inside --repo-dir");
  const baseRef = args.base.replace(/^refs\/heads\//, "");
  const [headSha, baseSha] = await commitsOf(repo, [args.head, baseRef]);
  const job = parseOrThrow(
    ReviewJob,
    {
      installationId: LOCAL_INSTALLATION_ID,
      repositoryId: repositoryId(args.repository),
      repository: args.repository,
      pullNumber: args.pullNumber,
      headSha,
      baseSha,
      baseRef,
      defaultBranch: (args.defaultBranch ?? baseRef).replace(/^refs\/heads\//, ""),
      // A local submission is the newest word on its PR: it orders after everything submitted before.
      pullUpdatedAt: new Date().toISOString(),
      headFrom: "event",
      deliveryId: randomUUID(),
      trigger: "local",
    },
    "USAGE",
  );
  const connection = createRedisConnection(redis, { name: "cli-submit", blocking: false });
  const queue = new Queue(REVIEW_QUEUE, { connection, prefix: keys.bull });
  try {
    return { job: job, outcome: await enqueueReview(queue, connection, keys, seal, job) };
  } catch (err) {
    throw new AppError("QUEUE_UNAVAILABLE", "could not enqueue the review", { cause: err });
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/** A stable positive id per repository name, standing in for GitHub's repository id. */
function repositoryId(repository: string): number {
  return Number.parseInt(createHash("sha256").update(repository).digest("hex").slice(0, 12), 16) + 1;
}

/** Each ref's commit in the local repository, through overlay's hardened git (an empty HOME of its own). */
async function commitsOf(repo: string, refs: readonly string[]): Promise<string[]> {
  const home = await mkdtemp(join(tmpdir(), "reviewbot-submit-"));
  const context = { cwd: home, home, path: inheritedPath(), allowedProtocols: ["file"], timeoutMs: GIT_TIMEOUT_MS };
  // A work tree's repository is its .git directory; otherwise the directory is a bare repository.
  const gitDir = (await stat(join(repo, ".git")).catch(() => null))?.isDirectory() === true ? join(repo, ".git") : repo;
  try {
    const commits: string[] = [];
    for (const ref of refs) {
      commits.push(
        await resolveCommit(context, gitDir, ref).catch((err: unknown) => {
          throw new AppError("REF_NOT_FOUND", `${ref} is not a commit of ${repo}`, { cause: err });
        }),
      );
    }
    return commits;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
