import { z } from "zod";
import { AppError } from "@reviewbot/core/errors";
import { parseEnvConfig } from "@reviewbot/core/env-config";
import { LogLevel, RuntimeConfig } from "@reviewbot/review/runtime/runtime-config";

const positiveInt = z.coerce.number().int().positive();

/**
 * The worker's settings: the pipeline's slice (cache, sandbox, policy file) plus the queue, the
 * review source and the worker's own limits. Strict: an unknown REVIEWBOT_* name is an error.
 */
export const WorkerConfig = RuntimeConfig.extend({
  REDIS_URL: z.string().regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL"),
  REVIEWBOT_LOG_LEVEL: LogLevel.default("info"),
  REVIEWBOT_SOURCE: z.enum(["github", "local"]).default("github"),
  REVIEWBOT_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  REVIEWBOT_WORKER_CREDENTIAL: z.string().min(32, "must be at least 32 characters").optional(),
  REVIEWBOT_GIT_URL: z.url({ protocol: /^https?$/ }).default("https://github.com"),
  REVIEWBOT_LOCAL_REPOS_DIR: z.string().min(1).optional(),
  REVIEWBOT_CONCURRENCY: positiveInt.max(64).default(2),
  REVIEWBOT_SHUTDOWN_GRACE_MS: z.coerce.number().int().nonnegative().default(30_000),
  REVIEWBOT_LOCK_DURATION_MS: positiveInt.min(5_000).default(60_000),
  REVIEWBOT_WORKER_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  // Loopback by default, like the api: expose health and metrics to other hosts deliberately.
  REVIEWBOT_WORKER_HOST: z.string().min(1).default("127.0.0.1"),
}).strict();
export type WorkerConfig = z.infer<typeof WorkerConfig>;

/**
 * Reads the worker's configuration; the settings a source needs are required only for that
 * source (the token broker for `github`, the repositories directory for `local`).
 *
 * @throws AppError `CONFIG_INVALID` naming the first bad, unknown or missing variable.
 */
export function loadWorkerConfig(env: NodeJS.ProcessEnv): Readonly<WorkerConfig> {
  const config = parseEnvConfig(WorkerConfig, env);
  const required =
    config.REVIEWBOT_SOURCE === "github"
      ? (["REVIEWBOT_API_URL", "REVIEWBOT_WORKER_CREDENTIAL"] as const)
      : (["REVIEWBOT_LOCAL_REPOS_DIR"] as const);
  for (const name of required) {
    if (config[name] === undefined) throw new AppError("CONFIG_INVALID", `${name}: required when REVIEWBOT_SOURCE=${config.REVIEWBOT_SOURCE}`);
  }
  return config;
}
