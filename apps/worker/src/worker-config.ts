import { z } from "zod";
import { parseEnvConfig } from "@reviewbot/core/env-config";
import { REDIS_ENV_FIELDS, redisTargetOf } from "@reviewbot/queue/redis-target";
import { WORKER_CREDENTIAL } from "@reviewbot/queue/worker-credential";
import { LogLevel } from "@reviewbot/contracts/log-level";
import { RuntimeConfig } from "@reviewbot/runtime/runtime-config";
import { REDIS_KEYSPACE_ENV_FIELDS } from "@reviewbot/queue/redis-keyspace";

const positiveInt = z.coerce.number().int().positive();

/**
 * The worker's variables: the pipeline's slice (cache, sandbox, policy file) plus the queue, the
 * review source and the worker's own limits. Strict: an unknown REVIEWBOT_* name is an error.
 */
const WorkerVariables = RuntimeConfig.extend({
  ...REDIS_ENV_FIELDS,
  ...REDIS_KEYSPACE_ENV_FIELDS,
  REVIEWBOT_LOG_LEVEL: LogLevel.default("info"),
  REVIEWBOT_SOURCE: z.enum(["github", "local"]).default("github"),
  // Every worker claims its jobs from the api and reports to it, whatever the source.
  REVIEWBOT_API_URL: z.url({ protocol: /^https?$/ }),
  REVIEWBOT_WORKER_CREDENTIAL: z.string().regex(WORKER_CREDENTIAL, "must be <name>.<secret> as `reviewbot worker-credential` prints it"),
  REVIEWBOT_GIT_URL: z.url({ protocol: /^https?$/ }).default("https://github.com"),
  REVIEWBOT_LOCAL_REPOS_DIR: z.string().min(1).optional(),
  REVIEWBOT_CONCURRENCY: positiveInt.max(64).default(2),
  REVIEWBOT_SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().default(30_000),
  REVIEWBOT_LOCK_DURATION_MS: positiveInt.min(5_000).default(60_000),
  // The whole review, claim to report, within this wall-clock budget; then its sandboxes are killed
  // (helpers' own deadlines add up to hours).
  REVIEWBOT_REVIEW_DEADLINE_MS: positiveInt.min(5_000).max(86_400_000).default(1_200_000),
  REVIEWBOT_WORKER_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  // Loopback by default, like the api: expose health and metrics to other hosts deliberately.
  REVIEWBOT_WORKER_HOST: z.string().min(1).default("127.0.0.1"),
}).strict();

/** Where the worker reads repositories from: GitHub's git hosting, or a directory of local repositories. */
type ReviewSourceSetting = { readonly kind: "github"; readonly gitUrl: string } | { readonly kind: "local"; readonly reposDir: string };

/** The worker's settings: the variables, with the source and what it requires as one `source`, and its Redis as one `redis` target. */
export const WorkerConfig = WorkerVariables.transform((variables, ctx) => {
  const { REVIEWBOT_SOURCE: kind, REVIEWBOT_GIT_URL: gitUrl, REVIEWBOT_LOCAL_REPOS_DIR: reposDir, ...rest } = variables;
  const redis = redisTargetOf(variables, ctx, true);
  let source: ReviewSourceSetting | undefined;
  if (kind === "github") source = { kind, gitUrl };
  else if (reposDir !== undefined) source = { kind, reposDir };
  else ctx.addIssue({ code: "custom", path: ["REVIEWBOT_LOCAL_REPOS_DIR"], message: "is required when REVIEWBOT_SOURCE=local" });
  return source === undefined || redis === undefined ? z.NEVER : { ...rest, source, redis };
});
export type WorkerConfig = z.output<typeof WorkerConfig>;

/**
 * Reads the worker's configuration; the repositories directory is required for the `local` source.
 *
 * @throws AppError `CONFIG_INVALID` naming the first bad, unknown or missing variable.
 */
export function loadWorkerConfig(env: NodeJS.ProcessEnv): Readonly<WorkerConfig> {
  return parseEnvConfig(WorkerConfig, env);
}
